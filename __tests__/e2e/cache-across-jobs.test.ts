import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { makeFixtureRepo, PR_EVENT } from '../helpers/fixture-repo.js';
import { readResults, warningsAbout } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

const entries = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f));

/** The judge fails every item: a pass can only come from a forged cache entry. */
const strictJudge = () =>
  startOpenAIServer({
    respond: ({ desc }) =>
      desc.mode === 'checklist'
        ? {
            checks: desc.ids.map((id) => ({ id, reasoning: 'missing', satisfied: false })),
            overall_reasoning: 'fails',
          }
        : { checks: desc.ids.map((id) => ({ id, reasoning: 'poor', score: 1 })), overall_reasoning: 'poor' },
  });

test('the default setup keeps the cache across jobs whose judge key changes (GitHub Models), and never reads one the PR committed', async () => {
  judge = await strictJudge();
  github = await startGitHubServer();
  const workspace = makeFixtureRepo();
  // What actions/cache restores into: the runner's temp folder, shared by both jobs here.
  const runnerTemp = tmpDir('re-runner-temp-');
  // The judge's key is the job's own, as GitHub Models' workflow token is: new every job.
  const job = (token: string, temp = runnerTemp) =>
    runAction({
      workspace,
      inputs: {
        suites: 'evals/*.yaml',
        'judge-base-url': judge.url,
        'judge-api-key': token,
        'github-token': token,
      },
      event: PR_EVENT,
      apiUrl: github.url,
      env: { RUNNER_TEMP: temp },
    });

  const first = await job('ghs_job_one_0000000000');
  expect(first.code).toBe(1);
  expect(judge.state.requests).toHaveLength(2);
  const cacheDir = path.join(runnerTemp, 'rubric-eval-cache');
  expect(entries(cacheDir)).toHaveLength(2);
  expect(readdirSync(workspace)).not.toContain('.rubric-eval-cache');

  // A re-run of the unchanged PR, another job, another token: no judge call.
  const second = await job('ghs_job_two_1111111111');
  expect(judge.state.requests).toHaveLength(2);
  expect(second.outputs.verdict).toBe('fail');
  expect(readResults(workspace).usage).toMatchObject({ judge_calls: 0, cached_calls: 2 });
  expect(warningsAbout(second.stdout, 'judge cache')).toEqual([]);

  // The PR commits a cache of passes where the old default was: never read.
  const committed = path.join(workspace, '.rubric-eval-cache');
  cpSync(cacheDir, committed, { recursive: true });
  for (const file of entries(committed)) {
    const e = JSON.parse(readFileSync(file, 'utf8')) as { answer: { checks: Record<string, unknown>[] } };
    for (const c of e.answer.checks) {
      if ('satisfied' in c) c.satisfied = true;
      if ('score' in c) c.score = 10;
    }
    writeFileSync(file, JSON.stringify(e));
  }
  const fresh = await job('ghs_job_three_222222222', tmpDir('re-runner-temp-'));
  expect(judge.state.requests).toHaveLength(4);
  expect(fresh.outputs.verdict).toBe('fail');
  expect(readResults(workspace).usage).toMatchObject({ judge_calls: 2, cached_calls: 0 });
});
