import { strToU8, zipSync } from 'fflate';
import {
  type FakeArtifact,
  type FakeGitHub,
  startGitHubServer,
} from '../../__fixtures__/servers/github-server.mjs';
import { type Octokit } from '../../src/github/client.js';
import { statusFromResults } from '../../src/github/commit-status.js';
import { isRunPullRequest, recordRunOf } from '../../src/github/workflow-run.js';
import { invalidInputResults } from '../../src/report/results-file.js';

const SHA = 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678';
const repo = { owner: 'octo', repo: 'repo' };

test('the record run is read from the workflow_run event: id, head commit, the fork owner and branch, conclusion', () => {
  const run = recordRunOf(
    {
      workflow_run: {
        id: 9,
        head_sha: SHA,
        head_branch: 'feature',
        head_repository: { full_name: 'forker/repo', owner: { login: 'forker' } },
        conclusion: 'success',
        pull_requests: [],
      },
    },
    null,
    repo,
  );
  expect(run).toEqual({
    id: 9,
    headSha: SHA.toLowerCase(),
    headBranch: 'feature',
    headOwner: 'forker',
    headRepository: 'forker/repo',
    conclusion: 'success',
    url: 'https://github.com/octo/repo/actions/runs/9',
  });
});

test("the run's pull request is open, from the run's head repository and branch, at its commit", () => {
  const run = recordRunOf(
    {
      workflow_run: {
        id: 9,
        head_sha: SHA,
        head_branch: 'feature',
        head_repository: { full_name: 'forker/repo', owner: { login: 'forker' } },
      },
    },
    null,
    repo,
  );
  if ('error' in run) throw new Error(run.error);
  const pr = (over: Record<string, unknown> = {}, head: Record<string, unknown> = {}) => ({
    number: 1,
    title: 't',
    body: null,
    state: 'open',
    head: { sha: SHA.toLowerCase(), ref: 'feature', repo: { full_name: 'Forker/Repo' }, ...head },
    ...over,
  });
  expect(isRunPullRequest(pr(), run)).toBe(true);
  expect(isRunPullRequest(pr({ state: 'closed' }), run)).toBe(false);
  expect(isRunPullRequest(pr({}, { repo: { full_name: 'other/repo' } }), run)).toBe(false);
  expect(isRunPullRequest(pr({}, { repo: null }), run)).toBe(false);
  expect(isRunPullRequest(pr({}, { ref: 'main' }), run)).toBe(false);
  expect(isRunPullRequest(pr({}, { sha: 'b'.repeat(40) }), run)).toBe(false);
  expect(isRunPullRequest(pr(), { ...run, headRepository: null })).toBe(false);
});

test.each([
  ['a pull_request event', { pull_request: { number: 1 } }, /runs on `workflow_run`/],
  [
    'a head sha that is not one',
    { workflow_run: { id: 9, head_sha: 'main' } },
    /no valid run id or head_sha/,
  ],
  ['no run id', { workflow_run: { head_sha: SHA } }, /no valid run id or head_sha/],
])('%s is not a judge stage event', (_n, payload, why) => {
  const run = recordRunOf(payload, null, repo);
  expect('error' in run && run.error).toMatch(why);
});

test('the status: error when nothing was judged, failure when the check fails, success otherwise; only our words', () => {
  const invalid = invalidInputResults(['the record bundle has two answers for case @someone']);
  expect(statusFromResults(invalid, true)).toEqual({
    state: 'error',
    description: 'rubric-eval: not judged (1 problem; see the run)',
  });
  const judged = {
    ...invalid,
    errors: [],
    verdict: 'borderline' as const,
    score: 0.7,
    counts: { pass: 1, borderline: 1, fail: 0, error: 0 },
  };
  expect(statusFromResults(judged, false)).toEqual({
    state: 'success',
    description: 'borderline · score 0.70 · 1 pass · 1 borderline · 0 fail (base suites)',
  });
  expect(statusFromResults(judged, true).state).toBe('failure');
  expect(statusFromResults({ ...judged, partial: true }, false).state).toBe('error');
  // An undecided case is never success, even when fail-on lets the check pass.
  const undecided = { ...judged, counts: { ...judged.counts, inconclusive: 2 } };
  expect(statusFromResults(undecided, false)).toEqual({
    state: 'failure',
    description: 'borderline · score 0.70 · 1 pass · 1 borderline · 0 fail · 2 inconclusive (base suites)',
  });
});

describe("the record run's bundles through the Actions API", () => {
  let github: FakeGitHub;
  let octokit: Octokit;
  let downloadRecordBundles: typeof import('../../src/github/workflow-run.js').downloadRecordBundles;
  const RUN = {
    id: 77,
    headSha: SHA.toLowerCase(),
    headBranch: 'f',
    headOwner: 'forker',
    headRepository: 'forker/repo',
    conclusion: 'success',
    url: null,
  };
  const signal = new AbortController().signal;
  const artifact = (
    id: number,
    name: string,
    text: string,
    over: Partial<FakeArtifact> = {},
  ): FakeArtifact => ({
    id,
    name,
    expired: false,
    created_at: new Date().toISOString(),
    workflow_run: { id: 77, repository_id: 1, head_repository_id: 2, head_branch: 'f', head_sha: SHA },
    zip: zipSync({ 'rubric-eval-record.json': strToU8(text) }),
    ...over,
  });

  beforeAll(async () => {
    github = await startGitHubServer();
    process.env.GITHUB_API_URL = github.url;
    const client = await import('../../src/github/client.js');
    ({ downloadRecordBundles } = await import('../../src/github/workflow-run.js'));
    octokit = client.createOctokit('ghs_token_1234', { warn: () => undefined, timeoutMs: 5000 });
  });
  afterAll(() => github.close());
  const use = (list: FakeArtifact[]) => {
    github.state.artifacts.artifacts = list;
    github.state.artifacts.downloads.length = 0;
  };

  test("a matrix of 150 shards: every page listed, each shard's bundle downloaded, others' artifacts left alone", async () => {
    use([
      ...Array.from({ length: 150 }, (_, i) =>
        artifact(1000 + i, `rubric-eval-record-${i + 1}`, `{"n":${i + 1}}`),
      ),
      artifact(5, 'rubric-eval-results', '{}'),
      artifact(6, 'rubric-eval-record-1', '{}', {
        workflow_run: { ...artifact(0, '', '').workflow_run!, id: 78 },
      }),
    ]);
    const got = await downloadRecordBundles(octokit, repo, RUN, 'rubric-eval-record.json', signal);
    if ('error' in got) throw new Error(got.error);
    expect(got.bundles).toHaveLength(150);
    expect(got.bundles.map((b) => b.text).sort()).toEqual(
      Array.from({ length: 150 }, (_, i) => `{"n":${i + 1}}`).sort(),
    );
    expect(github.state.artifacts.downloads.map((d) => d.id)).not.toContain(5);
    expect(github.state.artifacts.downloads.map((d) => d.id)).not.toContain(6);
  });

  test('a 256-shard matrix whose jobs upload another artifact each (512 in the run) is read whole', async () => {
    use(
      Array.from({ length: 256 }, (_, i) => [
        artifact(1000 + i, `rubric-eval-record-${i + 1}`, `{"n":${i + 1}}`),
        artifact(3000 + i, `junit-${i + 1}`, '{}'),
      ]).flat(),
    );
    const got = await downloadRecordBundles(octokit, repo, RUN, 'rubric-eval-record.json', signal);
    expect('bundles' in got && got.bundles.length).toBe(256);
    expect(github.state.artifacts.downloads).toHaveLength(256);
  });

  test('an expired shard, or bundles over the cap together: an error naming it, never part of a run', async () => {
    use([
      artifact(1, 'rubric-eval-record-1', '{}'),
      artifact(2, 'rubric-eval-record-2', '{}', { expired: true }),
    ]);
    expect(await downloadRecordBundles(octokit, repo, RUN, 'rubric-eval-record.json', signal)).toEqual({
      error: "the record run's rubric-eval-record-2 artifact has expired; re-run the record workflow",
    });
    use([1, 2, 3].map((i) => artifact(i, `rubric-eval-record-${i}`, 'x'.repeat(600))));
    const got = await downloadRecordBundles(octokit, repo, RUN, 'rubric-eval-record.json', signal, {
      each: 1000,
      together: 1500,
    });
    expect('error' in got && got.error).toMatch(
      /^rubric-eval-record-3 artifact #3: .*300.* \(what was left of the 1500 bytes the run's bundles may take together\)$/,
    );
  });
});
