import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { startParisJudge } from '../helpers/paris-judge.js';
import { runAction } from '../helpers/action.js';
import { connectProxy } from '../helpers/proxy.js';
import { makeFixtureRepo, PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';

let judge: FakeOpenAI;
let github: FakeGitHub;

beforeEach(async () => {
  judge = await startParisJudge();
  github = await startGitHubServer({
    pullRequest: {
      number: 7,
      title: 'Add search',
      body: 'Implements the search endpoint.',
      diff: PR_DIFF,
      files: [{ filename: 'src/search.ts', status: 'added', additions: 3, deletions: 0 }],
    },
  });
});
afterEach(async () => {
  await judge.close();
  await github.close();
});

const inputs = (extra: Record<string, string> = {}) => ({
  suites: 'evals/*.yaml',
  rubric: 'RUBRIC.md',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-e2e-judge-key-000111',
  'github-token': 'ghs_e2e_token_000111',
  concurrency: '4',
  'cache-dir': '',
  ...extra,
});

const results = (workspace: string): RunResults =>
  JSON.parse(readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'));

test('a PR run with a gating violation: comment, outputs, summary, results file, exit 1; a second run edits the same comment', async () => {
  const workspace = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  const first = await runAction({
    workspace,
    inputs: inputs({ 'cache-dir': '.cache' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(first.stderr).toBe('');
  expect(first.code).toBe(1);
  expect(first.stdout).toMatch(/::error::rubric-eval: fail \(score [0-9.]+\): 1 failed/);
  expect(first.stdout).toContain(
    '::error title=rubric-eval%3A case failed,file=evals/qa.yaml,line=3::case \'capital-of-france\' failed (score 0.50): rubric › names-paris "Says Paris" (required): does not name Paris',
  );
  expect(first.stdout).not.toMatch(/::group::[^\n]*\n(?:(?!::endgroup::)[\s\S])*::group::/);
  expect(first.stdout).toMatch(/\[2\/2\] \S+ (pass|fail) /);
  expect(first.outputs).toMatchObject({
    verdict: 'fail',
    passed: '1',
    borderline: '0',
    failed: '1',
    'results-file': path.join(workspace, 'rubric-eval-results.json'),
  });
  expect(first.outputs['comment-url']).toMatch(/^https:\/\/github.com\/o\/r\/pull\/7#issuecomment-\d+$/);

  const r = results(workspace);
  expect(r.verdict).toBe('fail');
  expect(r.counts).toEqual({ pass: 1, borderline: 0, fail: 1, error: 0 });
  expect(r.suites[0]!.cases.map((c) => [c.id, c.verdict, c.gating_violations])).toEqual([
    ['capital-of-france', 'fail', ['names-paris: required item not satisfied']],
    ['explain-quicksort', 'pass', []],
  ]);
  expect(r.rubric).toMatchObject({
    verdict: 'pass',
    counts: { gates_passed: 2, gates_total: 2, must_passed: 2, must_total: 2, nice_passed: 1, nice_total: 1 },
  });
  expect(r.usage.judge_calls).toBe(3);

  // The comment: marker first, verdict, the failing case with its violation, the rubric counts.
  expect(github.state.comments).toHaveLength(1);
  const comment = github.state.comments[0]!.body;
  expect(comment.split('\n')[0]).toBe('<!-- rubric-eval -->');
  expect(comment).toContain('## ❌ rubric-eval: **fail**');
  expect(comment).toContain(
    '| ❌ | `capital-of-france` | 0.50 | 1/2 |  | names-paris: required item not satisfied |',
  );
  expect(comment).toContain('`gates: 2/2 · must: 2/2 · nice: 1/1`');
  expect(comment).toContain('[workflow run](https://github.com/octo/repo/actions/runs/4242)');
  expect(comment).not.toContain('sk-e2e-judge-key-000111');
  // The checker saw the PR diff from the API and the gate results.
  const checker = judge.state.requests.find((q) => JSON.stringify(q.body).includes('# Gate Results'))!;
  expect(checker.body.messages[1].content).toContain('+export function search(q: string) {');
  expect(checker.body.messages[1].content).toContain('Title: Add search');

  // The summary has the same report, without the sticky marker.
  expect(first.summary).toContain('## ❌ rubric-eval: **fail**');
  expect(first.summary).not.toContain('<!-- rubric-eval -->');

  // Second run: the same comment is edited, and the history shows both runs.
  const second = await runAction({
    workspace,
    inputs: inputs({ 'cache-dir': '.cache' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(second.code).toBe(1);
  expect(github.state.comments).toHaveLength(1);
  expect(github.state.requests.filter((q) => q.method === 'PATCH')).toHaveLength(1);
  const edited = github.state.comments[0]!.body;
  expect(edited).toContain('### Run history');
  expect(edited).toMatch(/\| 0 \| `abc1234` \| ❌ fail \|[\s\S]*\| 1 \| `abc1234` \| ❌ fail \|/);
  // The second run's checker prompt carries the first run as a prior iteration (so it is a new
  // prompt, not a cache hit); the case judgements are unchanged and come from the cache.
  expect(results(workspace).history).toHaveLength(2);
  const checkers = judge.state.requests.filter((q) => JSON.stringify(q.body).includes('# Gate Results'));
  expect(checkers).toHaveLength(2);
  expect(checkers[1]!.body.messages[1].content).toMatch(
    /# Prior Iterations\n<<<PRIOR_ITERATIONS [0-9a-f]{16} \(untrusted data[^\n]*\n- Iteration 0 \(abc1234\): \*\*ACCEPT\*\* — 1 pass · 0 borderline · 1 fail · rubric gates: 2\/2 · must: 2\/2 · nice: 1\/1 — All criteria hold\.\n<<<END PRIOR_ITERATIONS/,
  );
  expect(checkers[1]!.body.messages[1].content).toContain('This is iteration 1.');
  expect(results(workspace).usage).toMatchObject({ judge_calls: 1, cached_calls: 2 });
});

test('all good: exit 0, verdict pass', async () => {
  const workspace = makeFixtureRepo();
  const run = await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(run.code).toBe(0);
  expect(run.outputs.verdict).toBe('pass');
  expect(run.outputs.score).toMatch(/^\d\.\d{4}$/);
  expect(results(workspace).counts).toEqual({ pass: 2, borderline: 0, fail: 0, error: 0 });
  expect(github.state.comments[0]!.body).toContain('## ✅ rubric-eval: **pass**');
});

test('behind a proxy (HTTP_PROXY): the judge calls and the GitHub calls go through it', async () => {
  const proxy = await connectProxy();
  try {
    const workspace = makeFixtureRepo();
    // judge.test and github.test resolve only through the test proxy (to the fake servers).
    const run = await runAction({
      workspace,
      inputs: inputs({ 'judge-base-url': judge.url.replace('127.0.0.1', 'judge.test') }),
      event: PR_EVENT,
      apiUrl: github.url.replace('127.0.0.1', 'github.test'),
      env: { HTTP_PROXY: proxy.url },
    });
    expect(run.code).toBe(0);
    expect(github.state.comments[0]!.body).toContain('## ✅ rubric-eval: **pass**');
    // The judge's http:// calls are forwarded; GitHub's go through tunnels (undici's way).
    expect(proxy.forwarded()).toBeGreaterThanOrEqual(2);
    expect(proxy.tunnels()).toBeGreaterThanOrEqual(1);
  } finally {
    await proxy.close();
  }
});

test('fail-on: never reports the failure and exits 0', async () => {
  const workspace = makeFixtureRepo({ answers: { 'capital-of-france': 'Lyon.' } });
  const run = await runAction({
    workspace,
    inputs: inputs({ 'fail-on': 'never' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.code).toBe(0);
  expect(run.outputs.verdict).toBe('fail');
});

test('a failing gate fails the check even when every case passes', async () => {
  const workspace = makeFixtureRepo({
    gates: ['node -e "console.log(\'ok\')"', 'node -e "console.error(\'2 tests failed\'); process.exit(3)"'],
  });
  const run = await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(run.code).toBe(1);
  const r = results(workspace);
  expect(r.rubric!.verdict).toBe('fail');
  expect(r.rubric!.gates.map((g) => [g.verdict, g.exit_code])).toEqual([
    ['pass', 0],
    ['fail', 3],
  ]);
  expect(github.state.comments[0]!.body).toContain('2 tests failed');
});

test('a 403 on comments (fork PR): warning naming the permission, summary and results written, exit by the verdict', async () => {
  github.state.failures.push({
    method: 'POST',
    path: /\/issues\/7\/comments$/,
    status: 403,
    times: 99,
    message: 'Resource not accessible by integration',
  });
  const workspace = makeFixtureRepo();
  const run = await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(
    /::warning::GitHub refused the PR comment \(HTTP 403[^)]*\).*permissions: pull-requests: write/,
  );
  expect(run.summary).toContain('rubric-eval: **pass**');
  expect(results(workspace).verdict).toBe('pass');
  expect(run.outputs['comment-url']).toBe('');

  const failing = makeFixtureRepo({ answers: { 'capital-of-france': 'Lyon.' } });
  const run2 = await runAction({ workspace: failing, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(run2.code).toBe(1);
});

test('invalid inputs name the input and the accepted values', async () => {
  const workspace = makeFixtureRepo();
  const run = await runAction({
    workspace,
    inputs: inputs({ 'fail-on': 'sometimes', concurrency: '0' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.code).toBe(1);
  expect(run.stdout).toContain(
    "fail-on: must be one of fail, borderline, inconclusive, regression, never, calibration, effect (got 'sometimes')",
  );
  expect(run.stdout).toContain('concurrency: must be an integer from 1 to 256');
  // The results file still says why.
  const r = results(workspace);
  expect(r.verdict).toBe('fail');
  expect([...r.errors].sort()).toEqual([
    'inputs: concurrency: must be an integer from 1 to 256',
    "inputs: fail-on: must be one of fail, borderline, inconclusive, regression, never, calibration, effect (got 'sometimes')",
  ]);
  expect(run.outputs.verdict).toBe('fail');
});

test('comment: new posts another comment each run; comment: off posts none', async () => {
  const workspace = makeFixtureRepo();
  await runAction({ workspace, inputs: inputs({ comment: 'new' }), event: PR_EVENT, apiUrl: github.url });
  await runAction({ workspace, inputs: inputs({ comment: 'new' }), event: PR_EVENT, apiUrl: github.url });
  expect(github.state.comments).toHaveLength(2);
  const off = await runAction({
    workspace,
    inputs: inputs({ comment: 'off' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(off.code).toBe(0);
  expect(github.state.comments).toHaveLength(2);
  expect(off.outputs['comment-url']).toBe('');
});

test('the sticky comment is found past the first page of 100 comments', async () => {
  const others = Array.from({ length: 130 }, (_, k) => ({ id: k + 1, issue: 7, body: `chatter ${k}` }));
  github.state.comments.push(...others);
  const workspace = makeFixtureRepo();
  await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  // Move our comment to the end of page 2, then run again: it must be edited, not duplicated.
  const ours = github.state.comments.find((c) => c.body.startsWith('<!-- rubric-eval -->'))!;
  expect(github.state.comments.indexOf(ours)).toBe(130);
  await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(github.state.comments.filter((c) => c.body.startsWith('<!-- rubric-eval -->'))).toHaveLength(1);
  expect(
    github.state.requests.filter(
      (q) => q.method === 'GET' && q.path.endsWith('/comments') && q.query.page === '2',
    ).length,
  ).toBeGreaterThan(0);
});

test('an invalid suite: nothing is judged, the results file lists the problem, annotations carry file and line', async () => {
  const workspace = makeFixtureRepo();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    path.join(workspace, 'evals/bad.yaml'),
    'evalcases:\n  - id: x\n    input: hi\n    rubrics:\n      - id: r\n        score_ranges:\n          0: low\n          5: high\n          5.5: what\n',
  );
  const run = await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(run.code).toBe(1);
  expect(judge.state.requests).toHaveLength(0);
  expect(run.stdout).toContain(
    "::error title=rubric-eval%3A integer,file=evals/bad.yaml,line=9,col=11::rubric 'r': lower bound '5.5' must be an integer",
  );
  const r = results(workspace);
  expect(r.verdict).toBe('fail');
  expect(r.errors).toEqual(["evals/bad.yaml:9:11 rubric 'r': integer: lower bound '5.5' must be an integer"]);
  expect(github.state.comments[0]!.body).toContain('Nothing was judged: the input is invalid.');
});

test('outside a pull request (push): evaluates and writes the summary, no comment', async () => {
  const workspace = makeFixtureRepo();
  const run = await runAction({
    workspace,
    inputs: { ...inputs(), rubric: '' },
    event: { ref: 'refs/heads/main' },
    eventName: 'push',
    apiUrl: github.url,
  });
  expect(run.code).toBe(0);
  expect(github.state.requests.filter((q) => q.path.includes('/comments'))).toHaveLength(0);
  expect(run.summary).toContain('rubric-eval: **pass**');
});
