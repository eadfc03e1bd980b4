import { strToU8, zipSync } from 'fflate';
import {
  type FakeArtifact,
  type FakeGitHub,
  startGitHubServer,
} from '../../__fixtures__/servers/github-server.mjs';
import { type FoundBaseline } from '../../src/baseline/load.js';
import { type Octokit } from '../../src/github/client.js';
import { resultsOf } from '../helpers/results.js';

let github: FakeGitHub;
let lookupWith: (o: Octokit, q?: { timeoutMs?: number; signal?: AbortSignal }) => Promise<FoundBaseline>;
let octokit: Octokit;

// One fake API for the file: @actions/github reads GITHUB_API_URL once, when it is first imported.
beforeAll(async () => {
  github = await startGitHubServer();
  process.env.GITHUB_API_URL = github.url;
  const { createOctokit } = await import('../../src/github/client.js');
  const { findBaselineArtifact } = await import('../../src/github/baseline-artifact.js');
  octokit = createOctokit('ghs_secret_token_1234', { warn: () => undefined, timeoutMs: 5000 });
  lookupWith = (o, q = {}) =>
    findBaselineArtifact(
      o,
      { owner: 'octo', repo: 'repo' },
      {
        name: 'rubric-eval-results',
        baseSha: BASE_SHA,
        baseRef: 'main',
        resultsFileName: 'rubric-eval-results.json',
        serverUrl: 'https://github.com',
        ...q,
      },
    );
});
afterAll(() => github.close());

const BASE_SHA = 'b'.repeat(40);
const RESULTS = JSON.stringify(resultsOf([['evals/qa.yaml', 'x', 'pass', 1, 'h']]));
const zipOf = (text: string) => zipSync({ 'rubric-eval-results.json': strToU8(text) });

let n = 1;
function artifact(
  over: Partial<FakeArtifact> & { branch?: string; sha?: string; fork?: boolean },
): FakeArtifact {
  const id = n++;
  const { branch = 'main', sha = 'c'.repeat(40), fork = false, ...rest } = over;
  return {
    id,
    name: 'rubric-eval-results',
    expired: false,
    created_at: `2026-11-${String(10 + (id % 10)).padStart(2, '0')}T00:00:00Z`,
    workflow_run: {
      id: 9000 + id,
      repository_id: 1,
      head_repository_id: fork ? 2 : 1,
      head_branch: branch,
      head_sha: sha,
    },
    zip: zipOf(RESULTS),
    ...rest,
  };
}

/** The lookup through the real client (retries, throttling) against the fake API serving `artifacts`. */
function lookup(
  artifacts: FakeArtifact[],
  failures: FakeGitHub['state']['failures'] = [],
  q: { timeoutMs?: number; signal?: AbortSignal } = {},
) {
  github.state.artifacts.artifacts.splice(0, Infinity, ...artifacts);
  github.state.artifacts.downloads.length = 0;
  github.state.requests.length = 0;
  github.state.failures.splice(0, Infinity, ...failures);
  return lookupWith(octokit, q);
}

const idOf = (f: FoundBaseline) => ('origin' in f ? f.origin.artifact_id : f);

test('the newest live artifact of the base commit wins over newer ones on the branch, other names, forks and expired ones', async () => {
  const right = artifact({ sha: BASE_SHA, created_at: '2026-11-20T00:00:00Z' });
  const list = [
    artifact({ sha: BASE_SHA, created_at: '2026-11-22T00:00:00Z', expired: true }),
    artifact({ branch: 'main', created_at: '2026-11-23T00:00:00Z' }),
    artifact({ name: 'coverage', sha: BASE_SHA, created_at: '2026-11-23T00:00:00Z' }),
    artifact({ branch: 'main', sha: BASE_SHA, fork: true, created_at: '2026-11-23T00:00:00Z' }),
    artifact({ sha: BASE_SHA, created_at: '2026-11-19T00:00:00Z' }),
    right,
  ];
  const found = await lookup(list);
  expect(idOf(found)).toBe(right.id);
  expect(found).toMatchObject({
    text: RESULTS,
    origin: {
      source: 'artifact',
      commit: BASE_SHA,
      run_id: right.workflow_run.id,
      run_url: `https://github.com/octo/repo/actions/runs/${right.workflow_run.id}`,
      created_at: '2026-11-20T00:00:00Z',
      file: 'rubric-eval-results/rubric-eval-results.json',
    },
  });
});

test('without one on the base commit, the newest live one on the base branch, found on a later page', async () => {
  const others = Array.from({ length: 150 }, () => artifact({ branch: 'feature' }));
  const right = artifact({ branch: 'main', created_at: '2026-11-21T00:00:00Z' });
  const older = artifact({ branch: 'main', created_at: '2026-11-01T00:00:00Z' });
  const found = await lookup([...others, older, right]);
  expect(idOf(found)).toBe(right.id);
  const lists = github.state.requests.filter((r) => r.path.endsWith('/actions/artifacts'));
  expect(lists.map((r) => [r.query.name, r.query.per_page, r.query.page])).toEqual([
    ['rubric-eval-results', '100', '1'],
    ['rubric-eval-results', '100', '2'],
  ]);
});

test('the zip behind the 302 is fetched from the storage origin without the token', async () => {
  await lookup([artifact({ sha: BASE_SHA })]);
  const zipCall = github.state.requests.find((r) => r.path.endsWith('/zip'))!;
  expect(zipCall.headers.authorization).toBe('token ghs_secret_token_1234');
  expect(github.state.artifacts.downloads).toEqual([{ id: expect.any(Number), authorization: null }]);
});

test('pagination stops at 10 pages: an artifact past them is not found', async () => {
  const list = Array.from({ length: 1_100 }, () => artifact({ branch: 'feature' }));
  list.push(artifact({ sha: BASE_SHA }));
  const found = await lookup(list);
  expect(found).toEqual({
    warning: `no rubric-eval-results artifact from base commit bbbbbbb or branch main among 1000 listed; upload the results file with actions/upload-artifact on push to the base branch, or set \`baseline: off\``,
  });
  expect(github.state.requests.filter((r) => r.path.endsWith('/actions/artifacts'))).toHaveLength(10);
});

test('each failure is a warning with its reason', async () => {
  expect(await lookup([artifact({ sha: BASE_SHA, expired: true })])).toEqual({
    warning: expect.stringMatching(
      /^the newest rubric-eval-results artifact for base commit bbbbbbb or branch main \(#\d+\) has expired/,
    ),
  });
  expect(
    await lookup(
      [],
      [
        {
          method: 'GET',
          path: /\/actions\/artifacts$/,
          status: 403,
          times: 1,
          message: 'Resource not accessible by integration',
        },
      ],
    ),
  ).toEqual({
    warning:
      'GitHub refused listing the artifacts named rubric-eval-results (HTTP 403): grant the workflow `permissions: actions: read`',
  });
  expect(
    await lookup([artifact({ sha: BASE_SHA })], [{ method: 'GET', path: /\/zip$/, status: 404, times: 1 }]),
  ).toEqual({
    warning: expect.stringMatching(/^downloading artifact rubric-eval-results #\d+: not found \(HTTP 404/),
  });
  expect(await lookup([artifact({ sha: BASE_SHA, zip: strToU8('PK garbage') })])).toEqual({
    warning: expect.stringMatching(/^artifact rubric-eval-results #\d+: the artifact is not a readable zip/),
  });
});

test('a lookup the run cancels says so; one that runs out of time says it timed out', async () => {
  const hangOnce = () =>
    github.state.script.splice(0, Infinity, {
      method: 'GET',
      path: /\/actions\/artifacts$/,
      hang: true,
      times: 1,
    });
  hangOnce();
  const cancel = new AbortController();
  setTimeout(() => cancel.abort(), 100);
  expect(await lookup([artifact({ sha: BASE_SHA })], [], { signal: cancel.signal })).toEqual({
    warning: 'listing the artifacts named rubric-eval-results stopped: the run was cancelled',
  });
  hangOnce();
  expect(
    await lookup([artifact({ sha: BASE_SHA })], [], { timeoutMs: 100, signal: new AbortController().signal }),
  ).toEqual({ warning: 'listing the artifacts named rubric-eval-results timed out' });
});
