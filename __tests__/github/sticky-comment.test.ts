import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { createOctokit, type Octokit } from '../../src/github/client.js';
import { WORKFLOW_BOT } from '../../src/github/identity.js';
import { upsertSticky } from '../../src/github/sticky-comment.js';
import { runLine } from '../../src/report/history.js';

// The sticky comment against the fake GitHub through the real Octokit, with the interleavings a
// race produces scripted exactly.

let github: FakeGitHub;
let octokit: Octokit;
const warnings: string[] = [];
const repo = { owner: 'octo', repo: 'repo' };
const bot = { login: 'github-actions[bot]', type: 'Bot' };
const me = { login: WORKFLOW_BOT, source: 'workflow-token' as const };
const report = (run: number, text: string) =>
  `<!-- rubric-eval -->\n${text}\n\n${runLine({ id: run, attempt: 1 })}\n<!-- rubric-eval-history:W10= -->`;

beforeEach(async () => {
  github = await startGitHubServer({});
  process.env.GITHUB_API_URL = github.url;
  octokit = createOctokit('ghs_unit_token_0001', { warn: (m) => warnings.push(m), timeoutMs: 5000 });
  warnings.length = 0;
});
afterEach(() => github.close());

const ctx = (run: number) => ({ me, run: { id: run, attempt: 1 }, warn: (m: string) => warnings.push(m) });

test('several own marker comments: the newest is edited, the older ones are left', async () => {
  github.state.comments.push(
    { id: 10, issue: 7, body: report(90, 'old report'), user: bot },
    { id: 11, issue: 7, body: report(91, 'newer report'), user: bot },
  );
  const r = await upsertSticky(octokit, repo, 7, report(100, 'this run'), ctx(100));
  expect(r.action).toBe('edited');
  expect(github.state.comments.map((c) => [c.id, c.body.split('\n')[1]])).toEqual([
    [10, 'old report'],
    [11, 'this run'],
  ]);
});

test('an older run reaching the comment after a newer one leaves it as it is', async () => {
  github.state.comments.push({ id: 10, issue: 7, body: report(101, 'newer'), user: bot });
  const r = await upsertSticky(octokit, repo, 7, report(100, 'older'), ctx(100));
  expect(r.action).toBe('kept');
  expect(github.state.comments[0]!.body).toBe(report(101, 'newer'));
  expect(github.state.requests.filter((q) => q.method !== 'GET')).toEqual([]);
});

test('an older run that overwrote this run just after it wrote: this run writes its report again', async () => {
  github.state.comments.push({ id: 10, issue: 7, body: report(99, 'before'), user: bot });
  // The list before writing answers at once; the one after writing waits while the older run's
  // late edit lands.
  github.state.script.push(
    { method: 'GET', path: /\/issues\/7\/comments$/, times: 1, delayMs: 0 },
    { method: 'GET', path: /\/issues\/7\/comments$/, times: 1, delayMs: 1000 },
  );
  const writing = upsertSticky(octokit, repo, 7, report(101, 'newer'), ctx(101));
  while (!github.state.requests.some((q) => q.method === 'PATCH'))
    await new Promise((r) => setTimeout(r, 10));
  expect(github.state.comments[0]!.body).toBe(report(101, 'newer'));
  github.state.comments[0]!.body = report(100, 'older, late');
  await writing;
  expect(github.state.comments).toHaveLength(1);
  expect(github.state.comments[0]!.body).toBe(report(101, 'newer'));
  expect(warnings.join('\n')).toContain('an older run');
});

test("a racer never counts a foreign marker comment; the newer run edits the older run's comment", async () => {
  github.state.comments.push(
    { id: 20, issue: 7, body: report(101, 'newer'), user: bot },
    { id: 21, issue: 7, body: report(100, 'older'), user: { login: 'mallory', type: 'User' } },
  );
  // mallory's comment claims run 100 too: it is neither a candidate nor deleted.
  const r = await upsertSticky(octokit, repo, 7, report(100, 'older'), { ...ctx(100) });
  expect(r.action).toBe('kept');
  expect(github.state.comments.map((c) => c.id)).toEqual([20, 21]);

  github.state.comments.splice(0, 2, { id: 30, issue: 7, body: report(100, 'older'), user: bot });
  const newer = await upsertSticky(octokit, repo, 7, report(101, 'newer'), ctx(101));
  expect(newer.action).toBe('edited');
  expect(github.state.comments.map((c) => [c.id, c.body])).toEqual([[30, report(101, 'newer')]]);
});

test("an older run's edit that lands after this run's check after writing is repaired by its later looks", async () => {
  github.state.comments.push({ id: 10, issue: 7, body: report(99, 'before'), user: bot });
  const lists = () =>
    github.state.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/issues/7/comments')).length;
  const writing = upsertSticky(octokit, repo, 7, report(101, 'newer'), ctx(101));
  // The list before writing, and the one right after it: this run's check is done.
  while (lists() < 2) await new Promise((r) => setTimeout(r, 10));
  expect(github.state.comments[0]!.body).toBe(report(101, 'newer'));
  github.state.comments[0]!.body = report(100, 'older, late');
  await writing;
  expect(github.state.comments).toHaveLength(1);
  expect(github.state.comments[0]!.body).toBe(report(101, 'newer'));
  // Before, right after, and two later looks (the first one repairs, then lists once more).
  expect(lists()).toBe(5);
});

test('the comment read just before the edit shows a newer run: nothing is written', async () => {
  github.state.comments.push({ id: 10, issue: 7, body: report(99, 'before'), user: bot });
  // The newer run writes between this run's list and its edit.
  github.state.script.push({ method: 'GET', path: /\/issues\/comments\/10$/, times: 1, delayMs: 0 });
  const held = github.state.script[0]!;
  held.until = () => {
    github.state.comments[0]!.body = report(101, 'newer');
    return true;
  };
  const r = await upsertSticky(octokit, repo, 7, report(100, 'older'), ctx(100));
  expect(r.action).toBe('kept');
  expect(github.state.requests.filter((q) => q.method === 'PATCH')).toEqual([]);
  expect(github.state.comments[0]!.body).toBe(report(101, 'newer'));
});
