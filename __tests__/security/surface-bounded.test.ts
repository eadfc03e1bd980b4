import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { makeFixtureRepo, PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';

// Every wait on GitHub is bounded: a call that never answers, a pagination that
// never ends or loops, and a cancel in the middle of a GitHub call.

let judge: FakeOpenAI;
let github: FakeGitHub;

beforeEach(async () => {
  judge = await startOpenAIServer({});
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Add search', body: 'Implements search', diff: PR_DIFF, files: [] },
  });
});
afterEach(async () => {
  await judge.close();
  await github.close();
});

const inputs = (extra: Record<string, string> = {}) => ({
  rubric: 'RUBRIC.md',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-bounded-0000',
  'github-token': 'ghs_workflow_token_0001',
  'cache-dir': '',
  ...extra,
});
const results = (workspace: string): RunResults =>
  JSON.parse(readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'));
const commentLists = () =>
  github.state.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/7/comments'));

test('a GitHub call that never answers: each try times out, the retries are bounded, the verdict still decides', async () => {
  github.state.script.push({ method: 'GET', path: /\/issues\/7\/comments$/, times: 99, hang: true });
  const workspace = makeFixtureRepo();
  const run = await runAction({
    workspace,
    inputs: inputs({ 'github-timeout': '1' }),
    event: PR_EVENT,
    apiUrl: github.url,
    timeoutMs: 90_000,
  });
  // Two lists (history, then the comment), each 3 tries of 1 s with 0.5 s and 2 s between: 11 s.
  expect(commentLists()).toHaveLength(6);
  expect(run.durationMs).toBeLessThan(20_000);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("could not read the PR's comments");
  expect(run.stdout).toContain('could not post the PR comment');
  expect(results(workspace).verdict).toBe('pass');
  expect(run.summary).toContain('rubric-eval: **pass**');
  expect(github.state.comments).toEqual([]);
});

test.each([
  ['loop', 'the next link repeated'],
  ['endless', 'stopped after 50 pages'],
] as const)('pagination that %s: the list stops, the run goes on', async (pages, reason) => {
  github.state.pages = pages;
  github.state.comments.push(
    ...Array.from({ length: 100 }, (_, k) => ({ id: k + 1, issue: 7, body: `chatter ${k}` })),
  );
  const workspace = makeFixtureRepo();
  const run = await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(reason);
  // Five lists at most (history, before writing, after writing, and the two later looks that
  // catch an older run's late edit), each bounded.
  expect(commentLists().length).toBeLessThanOrEqual(pages === 'loop' ? 15 : 250);
  expect(github.state.comments.filter((c) => c.user?.login === 'github-actions[bot]')).toHaveLength(1);
});

test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s during a GitHub call that hangs: partial results written, exit non-zero within 5 s',
  async (signal) => {
    github.state.script.push({ method: 'GET', path: /\/issues\/7\/comments$/, times: 99, hang: true });
    const workspace = makeFixtureRepo();
    let sentAt = 0;
    const run = await runAction({
      workspace,
      inputs: inputs(),
      event: PR_EVENT,
      apiUrl: github.url,
      onStart: (pid) => {
        const wait = setInterval(() => {
          if (commentLists().length === 0) return;
          clearInterval(wait);
          sentAt = Date.now();
          process.kill(pid, signal);
        }, 20);
      },
    });
    expect(sentAt).toBeGreaterThan(0);
    expect(Date.now() - sentAt).toBeLessThan(5000);
    expect(run.code).not.toBe(0);
    const r = results(workspace);
    expect(r.partial).toBe(true);
    expect(r.verdict).toBe('fail');
    expect(run.summary).toContain('The run was cancelled');
    expect(github.state.requests.filter((q) => q.method === 'POST' || q.method === 'PATCH')).toEqual([]);
  },
);

test('SIGTERM while Octokit waits out a secondary rate limit (60 s): exit within 5 s, partial results', async () => {
  github.state.failures.push({
    method: 'GET',
    path: /\/issues\/7\/comments$/,
    status: 403,
    times: 99,
    message: 'You have exceeded a secondary rate limit',
  });
  const workspace = makeFixtureRepo();
  let sentAt = 0;
  const run = await runAction({
    workspace,
    inputs: inputs(),
    event: PR_EVENT,
    apiUrl: github.url,
    onStart: (pid) => {
      const wait = setInterval(() => {
        if (commentLists().length === 0) return;
        clearInterval(wait);
        // The first list was refused; Octokit is now pausing 60 s before it asks again.
        setTimeout(() => {
          sentAt = Date.now();
          process.kill(pid, 'SIGTERM');
        }, 300);
      }, 20);
    },
  });
  expect(sentAt).toBeGreaterThan(0);
  expect(Date.now() - sentAt).toBeLessThan(5000);
  expect(run.stdout).toContain('secondary rate limit on GET');
  expect(run.code).not.toBe(0);
  expect(results(workspace).partial).toBe(true);
  expect(commentLists()).toHaveLength(1);
});
