import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import {
  type FakeArtifact,
  type FakeGitHub,
  startGitHubServer,
} from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * The two-event workflow end to end through dist/index.js: a `push` run on the base branch makes
 * the results file that is uploaded as an artifact; a `pull_request` run finds it among others
 * through the fake REST API, follows the 302 to storage, and judges what the PR changed.
 */

let judge: FakeOpenAI;
let github: FakeGitHub;

// Each answer says how many of the ten checklist items it meets: the judge satisfies r1..rN.
beforeAll(async () => {
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode !== 'checklist') return undefined;
      const met = Number(/MET=(\d+)/.exec(desc.text)?.[1] ?? 0);
      return {
        checks: desc.ids.map((id) => ({
          id,
          reasoning: Number(id.slice(1)) <= met ? 'met' : 'not met',
          satisfied: Number(id.slice(1)) <= met,
        })),
        overall_reasoning: `${met} met`,
      };
    },
  });
});
afterAll(() => judge.close());
afterEach(() => github?.close());

const ITEMS = Array.from(
  { length: 10 },
  (_, i) => `      - id: r${i + 1}\n        expected_outcome: Point ${i + 1}\n        required: false`,
);

/** A repository whose suite has one case per (id, met, outcome); the answers say how many items are met. */
function repo(cases: { id: string; met: number; outcome?: string }[]): string {
  const root = tmpDir('re-baseline-');
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  mkdirSync(path.join(root, '.agentv'), { recursive: true });
  writeFileSync(
    path.join(root, '.agentv/targets.yaml'),
    `targets:\n  - name: default\n    provider: mock\n    responses:\n${cases.map((c) => `      ${c.id}: "MET=${c.met}"`).join('\n')}\n`,
  );
  writeFileSync(
    path.join(root, 'evals/qa.yaml'),
    `evalcases:\n${cases
      .map(
        (c) =>
          `  - id: ${c.id}\n    expected_outcome: ${c.outcome ?? 'Covers the points'}\n    input: Question ${c.id}\n    rubrics:\n${ITEMS.join('\n')}\n`,
      )
      .join('\n')}`,
  );
  return root;
}

const BASE_SHA = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0';
const PR = (number = 7) => ({
  action: 'synchronize',
  number,
  pull_request: {
    number,
    title: 'Change answers',
    body: 'Changes the answers.',
    head: { sha: 'feedfacefeedfacefeedfacefeedfacefeedface' },
    base: { sha: BASE_SHA, ref: 'main' },
  },
});

const inputs = (extra: Record<string, string> = {}) => ({
  suites: 'evals/*.yaml',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-e2e-judge-key-000111',
  'github-token': 'ghs_e2e_token_000111',
  'cache-dir': '',
  concurrency: '4',
  ...extra,
});

const readResults = (ws: string): RunResults =>
  JSON.parse(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8'));

/** The base branch's run: `push`, then its results file zipped as upload-artifact would. */
async function baseRun(cases: Parameters<typeof repo>[0]): Promise<Uint8Array> {
  const ws = repo(cases);
  const run = await runAction({
    workspace: ws,
    inputs: inputs({ 'fail-on': 'never' }),
    eventName: 'push',
    event: {},
  });
  expect(run.code).toBe(0);
  expect(run.stdout).not.toContain('::warning::');
  expect(readResults(ws).baseline ?? null).toBeNull();
  return zipSync({
    'rubric-eval-results.json': strToU8(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8')),
  });
}

let nextId = 100;
function artifact(
  zip: Uint8Array,
  o: { sha?: string; branch?: string; name?: string; created: string; expired?: boolean },
): FakeArtifact {
  const id = nextId++;
  return {
    id,
    name: o.name ?? 'rubric-eval-results',
    expired: o.expired ?? false,
    created_at: o.created,
    workflow_run: {
      id: 5000 + id,
      repository_id: 1,
      head_repository_id: 1,
      head_branch: o.branch ?? 'main',
      head_sha: o.sha ?? BASE_SHA,
    },
    zip,
  };
}

const BASE_CASES = [
  { id: 'steady', met: 10 },
  { id: 'edge', met: 10 },
  { id: 'breaks', met: 9 },
  { id: 'mends', met: 2 },
  { id: 'slips', met: 10 },
  { id: 'grows', met: 8 },
  { id: 'stuck', met: 2 },
  { id: 'reworded', met: 10 },
  { id: 'dropped', met: 10 },
];
const HEAD_CASES = [
  { id: 'steady', met: 10 },
  { id: 'edge', met: 9 }, // a drop of exactly the margin: same
  { id: 'breaks', met: 3 },
  { id: 'mends', met: 9 },
  { id: 'slips', met: 8 },
  { id: 'grows', met: 10 },
  { id: 'stuck', met: 3 },
  { id: 'reworded', met: 10, outcome: 'Covers the points, reworded' },
  { id: 'fresh', met: 4 },
];

test('the right artifact among others; every kind of change; fail-on regression fails on the broken case', async () => {
  const right = await baseRun(BASE_CASES);
  // Decoys whose content would give other changes: all of them must be passed over.
  const decoy = await baseRun(BASE_CASES.map((c) => ({ ...c, met: 0 })));
  const artifacts = [
    ...Array.from({ length: 120 }, (_, i) =>
      artifact(decoy, {
        branch: `feature-${i}`,
        sha: `${i}`.padStart(40, 'e'),
        created: '2026-11-23T00:00:00Z',
      }),
    ),
    artifact(decoy, { created: '2026-11-22T12:00:00Z', expired: true }),
    artifact(decoy, { branch: 'release', sha: 'c'.repeat(40), created: '2026-11-22T13:00:00Z' }),
    artifact(decoy, { name: 'coverage', created: '2026-11-22T14:00:00Z' }),
    artifact(decoy, { sha: 'd'.repeat(40), created: '2026-11-22T15:00:00Z' }), // on main, but not the base commit
    artifact(right, { created: '2026-11-22T10:00:00Z' }),
  ];
  const expected = artifacts.at(-1)!;
  github = await startGitHubServer({ artifacts });
  const ws = repo(HEAD_CASES);
  const run = await runAction({
    workspace: ws,
    inputs: inputs({ 'fail-on': 'regression' }),
    event: PR(),
    apiUrl: github.url,
  });

  const r = readResults(ws);
  expect(Object.fromEntries(r.suites[0]!.cases.map((c) => [c.id, c.baseline]))).toEqual({
    steady: { verdict: 'pass', score: 1, change: 'same' },
    // The base's answer rides along where it differs from this run's (the HTML report shows it).
    edge: { verdict: 'pass', score: 1, change: 'same', answer: 'MET=10' },
    breaks: { verdict: 'pass', score: 0.9, change: 'broken', answer: 'MET=9' },
    mends: { verdict: 'fail', score: 0.2, change: 'fixed', answer: 'MET=2' },
    slips: { verdict: 'pass', score: 1, change: 'regressed', answer: 'MET=10' },
    grows: { verdict: 'pass', score: 0.8, change: 'improved', answer: 'MET=8' },
    stuck: { verdict: 'fail', score: 0.2, change: 'same', answer: 'MET=2' },
    reworded: { verdict: 'pass', score: 1, change: 'redefined' },
    fresh: { verdict: null, score: null, change: 'new' },
  });
  expect(r.baseline).toEqual({
    source: 'artifact',
    commit: BASE_SHA,
    run_id: expected.workflow_run.id,
    run_url: `https://github.com/octo/repo/actions/runs/${expected.workflow_run.id}`,
    artifact_id: expected.id,
    created_at: '2026-11-22T10:00:00Z',
    file: 'rubric-eval-results/rubric-eval-results.json',
    margin: 0.1,
    changes: { same: 3, improved: 1, regressed: 1, fixed: 1, broken: 1, new: 1, redefined: 1, removed: 1 },
    removed: ['evals/qa.yaml#dropped'],
    check: {
      fail_on: 'regression',
      fails: true,
      reasons: ['1 broken', '1 regressed', '1 new or redefined failing'],
    },
  });
  // Two pages listed, one zip asked for, and the storage host never saw the token.
  const lists = github.state.requests.filter((q) => q.path === '/repos/octo/repo/actions/artifacts');
  expect(lists.map((q) => q.query.page ?? '1')).toEqual(['1', '2']);
  expect(github.state.requests.filter((q) => q.path.endsWith('/zip')).map((q) => q.path)).toEqual([
    `/repos/octo/repo/actions/artifacts/${expected.id}/zip`,
  ]);
  expect(github.state.artifacts.downloads).toEqual([{ id: expected.id, authorization: null }]);

  // The check: broken and a new failing case fail it; the still-failing case is not blamed.
  expect(run.code).toBe(1);
  expect(run.stdout).toContain(
    '::error::rubric-eval: fail (score 0.73) against the baseline: 1 broken, 1 regressed, 1 new or redefined failing',
  );
  const comment = github.state.comments[0]!.body;
  expect(comment.split('\n')[2]).toMatch(/^## ❌ rubric-eval/);
  expect(comment.split('\n')[4]).toBe(
    `vs base [b0b0b0b](https://github.com/octo/repo/actions/runs/${expected.workflow_run.id}): 1 broken · 1 regressed · 1 fixed · 1 improved · 1 still failing · 1 new · 1 redefined · 1 removed — \`fail-on: regression\` fails the check: 1 broken, 1 regressed, 1 new or redefined failing`,
  );
  expect(comment).toContain('| ❌ | `breaks` | 0.30 ▼0.60 | broken |');
  expect(run.summary).toContain(comment.split('\n')[4]);
}, 120_000);

test('fail-on regression passes when only failures already on the base remain', async () => {
  const cases = [
    { id: 'good', met: 10 },
    { id: 'stuck', met: 2 },
  ];
  github = await startGitHubServer({
    artifacts: [artifact(await baseRun(cases), { created: '2026-11-22T10:00:00Z' })],
  });
  const ws = repo(cases);
  const run = await runAction({
    workspace: ws,
    inputs: inputs({ 'fail-on': 'regression' }),
    event: PR(),
    apiUrl: github.url,
  });
  expect(run.outputs.verdict).toBe('fail');
  expect(run.stdout).not.toContain('::error::');
  expect(run.code).toBe(0);
  expect(readResults(ws).baseline!.changes).toMatchObject({ same: 2 });
  expect(github.state.comments[0]!.body).toContain('vs base [b0b0b0b](');
  expect(github.state.comments[0]!.body).toContain(
    ': 1 still failing — `fail-on: regression` passes the check: nothing got worse\n',
  );
}, 120_000);

test('a 403 on the artifact list: a warning naming actions: read, and the absolute verdict decides', async () => {
  github = await startGitHubServer({
    failures: [
      {
        method: 'GET',
        path: /\/actions\/artifacts$/,
        status: 403,
        times: 10,
        message: 'Resource not accessible by integration',
      },
    ],
  });
  const ws = repo([
    { id: 'good', met: 10 },
    { id: 'stuck', met: 2 },
  ]);
  const run = await runAction({
    workspace: ws,
    inputs: inputs({ 'fail-on': 'regression' }),
    event: PR(),
    apiUrl: github.url,
  });
  expect(run.stdout).toContain(
    '::warning::no baseline: GitHub refused listing the artifacts named rubric-eval-results (HTTP 403): grant the workflow `permissions: actions: read`; the run goes on without one',
  );
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('::error::rubric-eval: fail (score 0.60): 1 failed');
  const r = readResults(ws);
  expect(r.baseline).toBeNull();
  expect(r.suites[0]!.cases.map((c) => c.baseline)).toEqual([null, null]);
  expect(run.summary).toContain(
    // The reason is quoted text, made inert; its own code spans stay code spans (no escaped backticks).
    '_No baseline (GitHub refused listing the artifacts named rubric-eval-results (HTTP 403): grant the workflow `permissions: actions: read`): fail-on regression judges this run as fail._',
  );
  expect(github.state.comments[0]!.body).toContain('judges this run as fail');
}, 120_000);
