import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { type FakeGitHub, startGitHubServer } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * The pull request's effect end to end through dist/index.js: the base branch's results as an
 * artifact, a pull request judged against it, the overall effect in the comment and the summary,
 * and `fail-on: effect` deciding the check.
 */

let judge: FakeOpenAI;
let github: FakeGitHub;

// Each answer says how many of the ten checklist items it meets.
beforeAll(async () => {
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode !== 'checklist') return undefined;
      const met = Number(/MET=(\d+)/.exec(desc.text)?.[1] ?? 0);
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: 'r', satisfied: Number(id.slice(1)) <= met })),
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

/** 50 cases in 10 clusters; `met(i)` says how many items case i's answer meets. */
function repo(met: (i: number) => number): string {
  const root = tmpDir('re-effect-');
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  mkdirSync(path.join(root, '.agentv'), { recursive: true });
  const ids = Array.from({ length: 50 }, (_, i) => i);
  writeFileSync(
    path.join(root, '.agentv/targets.yaml'),
    `targets:\n  - name: default\n    provider: mock\n    responses:\n${ids.map((i) => `      c${i}: "MET=${met(i)}"`).join('\n')}\n`,
  );
  writeFileSync(
    path.join(root, 'evals/qa.yaml'),
    `evalcases:\n${ids
      .map(
        (i) =>
          `  - id: c${i}\n    cluster: topic-${i % 10}\n    expected_outcome: Covers the points\n    input: Question ${i}\n    rubrics:\n${ITEMS.join('\n')}\n`,
      )
      .join('\n')}`,
  );
  return root;
}

const BASE_SHA = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0';
const PR = {
  action: 'synchronize',
  number: 7,
  pull_request: {
    number: 7,
    title: 'Change answers',
    body: 'Changes the answers.',
    head: { sha: 'feedfacefeedfacefeedfacefeedfacefeedface' },
    base: { sha: BASE_SHA, ref: 'main' },
  },
};

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

/** The base branch's run (every case meets 9 of 10 items), as the artifact upload-artifact makes. */
async function baseArtifact(): Promise<Uint8Array> {
  const ws = repo(() => 9);
  const run = await runAction({
    workspace: ws,
    inputs: inputs({ 'fail-on': 'never' }),
    eventName: 'push',
    event: {},
  });
  expect(run.code).toBe(0);
  return zipSync({
    'rubric-eval-results.json': strToU8(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8')),
  });
}

async function prRun(met: (i: number) => number) {
  github = await startGitHubServer({
    artifacts: [
      {
        id: 300,
        name: 'rubric-eval-results',
        expired: false,
        created_at: '2026-11-22T10:00:00Z',
        workflow_run: {
          id: 5300,
          repository_id: 1,
          head_repository_id: 1,
          head_branch: 'main',
          head_sha: BASE_SHA,
        },
        zip: await baseArtifact(),
      },
    ],
  });
  const ws = repo(met);
  const run = await runAction({
    workspace: ws,
    inputs: inputs({ 'fail-on': 'effect' }),
    event: PR,
    apiUrl: github.url,
  });
  return { run, results: readResults(ws), comment: github.state.comments[0]!.body };
}

test('a pull request clearly worse than its base reads regressed with its interval and fails under fail-on: effect', async () => {
  // 20 of 50 cases now meet 3 items (fail): every case of 4 of the 10 clusters.
  const { run, results, comment } = await prRun((i) => (i % 5 < 2 ? 3 : 9));
  expect(results.suites[0]!.cases.every((c) => c.cluster === `topic-${Number(c.id.slice(1)) % 10}`)).toBe(
    true,
  );
  const pass = results.effect!.overall.find((r) => r.metric === 'pass')!;
  expect(pass).toMatchObject({
    n: 50,
    clusters: 10,
    base_mean: 1,
    head_mean: 0.6,
    delta: -0.4,
    verdict: 'regressed',
  });
  expect(pass.delta_high).toBeLessThan(0);
  expect(pass.method).toBe('cluster-robust t, Agresti-Min floor');
  const line = `pass rate 100% → 60% (−40 points, 95% CI ${Math.round(pass.delta_low * 100)
    .toString()
    .replace('-', '−')} to ${Math.round(pass.delta_high * 100)
    .toString()
    .replace('-', '−')}): regressed`;
  expect(comment).toContain(line);
  expect(comment).toMatch(/score 0\.90 → 0\.66 \(−0\.24, 95% CI −0\.\d\d to −0\.\d\d\): regressed/);
  expect(run.summary).toContain(line);
  expect(run.stdout).toContain('effect: pass rate 100% → 60%');
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(
    /::error::rubric-eval: .* against the baseline: the pass rate regressed \(−40 points, 95%25 CI −77 to −3\), the score regressed/,
  );
}, 120_000);

test('a pull request that changes nothing reads non-inferior, says what it could detect, and passes', async () => {
  const { run, results, comment } = await prRun(() => 9);
  const rows = results.effect!.overall;
  expect(rows.map((r) => [r.metric, r.delta, r.verdict])).toEqual([
    ['score', 0, 'non-inferior'],
    ['pass', 0, 'non-inferior'],
  ]);
  expect(comment).toMatch(
    /pass rate 100% → 100% \(0 points, 95% CI −\d+ to \+\d+\): non-inferior; this suite detects drops of \d+ points or more/,
  );
  expect(run.stdout).not.toContain('::error::');
  expect(run.code).toBe(0);
}, 120_000);
