import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { createOctokit, GITHUB_RETRIES } from '../../src/github/client.js';
import { boundedPages } from '../../src/github/pages.js';

let github: FakeGitHub;
beforeEach(async () => {
  github = await startGitHubServer({});
  process.env.GITHUB_API_URL = github.url;
});
afterEach(() => github.close());

const list = { owner: 'o', repo: 'r', issue_number: 7 };
const tries = () => github.state.requests.filter((q) => q.path.endsWith('/7/comments')).length;

test('a call that never answers: every try times out, the same retry budget for every call', async () => {
  github.state.script.push({ method: 'GET', path: /\/comments$/, times: 99, hang: true });
  const octokit = createOctokit('ghs_x_000000', { warn: () => {}, timeoutMs: 200 });
  for (let call = 1; call <= 2; call++) {
    const started = Date.now();
    await expect(octokit.rest.issues.listComments(list)).rejects.toMatchObject({
      status: 500,
      message: 'GitHub did not answer within 0.2 s',
    });
    expect(tries()).toBe(call * (GITHUB_RETRIES + 1));
    // 3 tries of 0.2 s and backoffs of 0.5 s and 2 s: the second call waits no longer than the first.
    expect(Date.now() - started).toBeLessThan(6000);
  }
});

test('a cancel aborts the call in flight and is not retried', async () => {
  github.state.script.push({ method: 'GET', path: /\/comments$/, times: 99, hang: true });
  const cancel = new AbortController();
  const octokit = createOctokit('ghs_x_000000', { warn: () => {}, timeoutMs: 60_000, signal: cancel.signal });
  const call = octokit.rest.issues.listComments(list);
  while (tries() === 0) await new Promise((r) => setTimeout(r, 10));
  cancel.abort();
  await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  expect(tries()).toBe(1);
});

test('pagination: a page cap, and a repeated next link ends the list', async () => {
  github.state.comments.push(
    ...Array.from({ length: 250 }, (_, k) => ({ id: k + 1, issue: 7, body: `c${k}` })),
  );
  const octokit = createOctokit('ghs_x_000000', { warn: () => {}, timeoutMs: 5000 });
  const all = await boundedPages(octokit, octokit.rest.issues.listComments, list, {});
  expect([all.items.length, all.stopped]).toEqual([250, null]);
  // A list that fills the cap's last page exactly was read whole.
  const exact = await boundedPages(octokit, octokit.rest.issues.listComments, list, { maxPages: 3 });
  expect([exact.items.length, exact.stopped]).toEqual([250, null]);

  github.state.pages = 'endless';
  const capped = await boundedPages(octokit, octokit.rest.issues.listComments, list, { maxPages: 7 });
  expect([capped.items.length, capped.stopped]).toEqual([700, 'stopped after 7 pages']);

  github.state.pages = 'loop';
  const before = tries();
  const looped = await boundedPages(octokit, octokit.rest.issues.listComments, list, {});
  expect(looped.stopped).toMatch(/^the next link repeated .*page=2/);
  expect(looped.items).toHaveLength(200);
  expect(tries() - before).toBe(3);
});
