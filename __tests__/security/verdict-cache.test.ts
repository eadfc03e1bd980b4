import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { makeFixtureRepo, PR_EVENT } from '../helpers/fixture-repo.js';
import { readResults, warningsAbout } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

/** Every file of a cache directory. */
function entries(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f));
}

/** Rewrites every entry as a PR would: every check satisfied, every score 10. */
function forgePasses(dir: string, keepMac: boolean): void {
  for (const file of entries(dir)) {
    const e = JSON.parse(readFileSync(file, 'utf8')) as { answer: { checks: Record<string, unknown>[] } };
    for (const c of e.answer.checks) {
      if ('satisfied' in c) c.satisfied = true;
      if ('score' in c) c.score = 10;
    }
    const out: Record<string, unknown> = { ...e };
    if (!keepMac) delete out.mac;
    writeFileSync(file, JSON.stringify(out));
  }
}

test('a judge cache the pull request wrote is never served: re-judged, one notice; the judge’s own entries still save every call', async () => {
  // One endpoint for every run: the cache key includes it, so the forged entries are found.
  let honest = false;
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      if (!honest) return undefined; // the PR author's local judge: everything passes
      if (desc.mode === 'checklist')
        return {
          checks: desc.ids.map((id) => ({ id, reasoning: 'missing', satisfied: false })),
          overall_reasoning: 'fails',
        };
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: 'poor', score: 1 })),
        overall_reasoning: 'poor',
      };
    },
  });
  github = await startGitHubServer();
  const workspace = makeFixtureRepo();
  const cacheDir = path.join(workspace, '.rubric-eval-cache');
  const run = (key: string) =>
    runAction({
      workspace,
      inputs: {
        suites: 'evals/*.yaml',
        'judge-base-url': judge.url,
        'judge-api-key': key,
        'github-token': 'ghs_workflow_token_0',
        // In the checkout (the default is outside it): where a PR can add files.
        'cache-dir': '.rubric-eval-cache',
      },
      event: PR_EVENT,
      apiUrl: github.url,
    });

  // 1. The author fills the cache with their own key (a valid MAC, under a key CI does not use)
  //    and commits it.
  const authored = await run('sk-pr-author-0000-0000-0000');
  expect(authored.code).toBe(0);
  expect(entries(cacheDir)).toHaveLength(2);

  // 2. CI, with its own key: nothing of the committed cache is served.
  honest = true;
  const before = judge.state.requests.length;
  const ci = await run('sk-ci-judge-1111-1111-1111');
  expect(judge.state.requests.length - before).toBe(2);
  expect(ci.code).toBe(1);
  expect(ci.outputs.verdict).toBe('fail');
  const notices = warningsAbout(ci.stdout, 'judge cache');
  expect(notices).toHaveLength(1);
  expect(notices[0]).toContain('ignored 2 entries not authenticated for this judge');
  expect(readResults(workspace).usage).toMatchObject({ judge_calls: 2, cached_calls: 0 });
  expect(github.state.comments.at(-1)!.body).toContain('rubric-eval: **fail**');

  // 3. Entries edited in place (MAC kept, or dropped as in the old format) are refused as well.
  for (const keepMac of [true, false]) {
    forgePasses(cacheDir, keepMac);
    const n = judge.state.requests.length;
    const again = await run('sk-ci-judge-1111-1111-1111');
    expect(judge.state.requests.length - n).toBe(2);
    expect(again.outputs.verdict).toBe('fail');
    expect(warningsAbout(again.stdout, 'judge cache')).toHaveLength(1);
  }

  // 4. The happy path: CI's own entries, untouched, are served with no call and no notice.
  const n = judge.state.requests.length;
  const cached = await run('sk-ci-judge-1111-1111-1111');
  expect(judge.state.requests.length).toBe(n);
  expect(cached.outputs.verdict).toBe('fail');
  expect(warningsAbout(cached.stdout, 'judge cache')).toEqual([]);
  expect(readResults(workspace).usage).toMatchObject({ judge_calls: 0, cached_calls: 2 });
}, 180_000);

test.each(['ollama', ''])(
  'a guessable judge key (%j) signs nothing a pull request could not forge: a cache in the checkout serves no earlier entry, with a warning',
  async (key) => {
    // The author's judge passes everything; CI's fails everything.
    let honest = false;
    judge = await startOpenAIServer({
      respond: ({ desc }) =>
        honest
          ? {
              checks: desc.ids.map((id) =>
                desc.mode === 'checklist'
                  ? { id, reasoning: 'missing', satisfied: false }
                  : { id, reasoning: 'poor', score: 1 },
              ),
              overall_reasoning: 'fails',
            }
          : undefined,
    });
    github = await startGitHubServer();
    const workspace = makeFixtureRepo();
    const run = () =>
      runAction({
        workspace,
        inputs: {
          suites: 'evals/*.yaml',
          'judge-base-url': judge.url,
          'judge-api-key': key,
          'github-token': 'ghs_workflow_token_0',
          'cache-dir': '.rubric-eval-cache',
        },
        event: PR_EVENT,
        apiUrl: github.url,
      });
    // The author signs passing entries with the same public key CI's local judge uses.
    const authored = await run();
    expect(authored.code).toBe(0);
    expect(entries(path.join(workspace, '.rubric-eval-cache'))).toHaveLength(2);
    honest = true;
    const before = judge.state.requests.length;
    const ci = await run();
    expect(judge.state.requests.length - before).toBe(2);
    expect(ci.outputs.verdict).toBe('fail');
    expect(readResults(workspace).usage).toMatchObject({ judge_calls: 2, cached_calls: 0 });
    const warned = warningsAbout(ci.stdout, 'is in the checkout and the judge key');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain(key ? 'is shorter than 20 characters' : 'is empty');
  },
  120_000,
);
