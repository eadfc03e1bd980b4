import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults, warningsAbout } from '../helpers/hostile-repo.js';

let ciJudge: FakeOpenAI;
let authorJudge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await ciJudge?.close();
  await authorJudge?.close();
  await github?.close();
});

const AUTHOR_KEY = 'sk-pr-author-key-5e1d';
const CI_KEY = 'sk-ci-judge-key-77a0';

/** The workflow's judge: this answer is wrong. */
const failing = () => ({ reasoning: 'wrong sum', hits: [], misses: ['says 5'], score: 0 });

/** A checkout whose targets.yaml names a judge of the author's: an openai target at their endpoint. */
function pickedJudgeRepo(endpoint: string): string {
  return hostileRepo({
    answer: 'The answer is 5.',
    files: {
      'targets.yaml': [
        'targets:',
        '  - name: default',
        '    provider: mock',
        '    response: The answer is 5.',
        '    judge_target: grader',
        '  - name: grader',
        '    provider: openai',
        `    endpoint: ${endpoint}`,
        `    api_key: ${AUTHOR_KEY}`,
        '    model: gpt-4.1-mini',
        '',
      ].join('\n'),
    },
  });
}

const cacheEntries = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));

test('a targets file’s judge_target is ignored with a located warning: the workflow’s judge grades, the author’s endpoint hears nothing, and a cache the author signed with their key is not served', async () => {
  ciJudge = await startOpenAIServer({ respond: failing });
  authorJudge = await startOpenAIServer(); // passes everything
  github = await startGitHubServer();
  const workspace = pickedJudgeRepo(authorJudge.url);
  const inputs = {
    suites: 'suite.yaml',
    'judge-base-url': ciJudge.url,
    'judge-api-key': CI_KEY,
    'github-token': 'ghs_workflow_token_0',
  };
  const run = await runAction({ workspace, inputs, event: PR_EVENT, apiUrl: github.url });

  expect(authorJudge.state.requests).toHaveLength(0);
  expect(ciJudge.state.requests).toHaveLength(1);
  expect(ciJudge.state.requests[0]!.headers.authorization).toBe(`Bearer ${CI_KEY}`);
  expect(run.code).toBe(1);
  expect(run.outputs.verdict).toBe('fail');
  const results = readResults(workspace);
  expect(results.suites[0]!.cases[0]).toMatchObject({ verdict: 'fail', score: 0 });
  expect(results.judge).toEqual({ model: 'gpt-4.1-mini', base_url: ciJudge.url });
  // Said once in the log and once as an annotation at the line that names the judge.
  const warned = warningsAbout(run.stdout, 'judge-target-ignored');
  expect(warned).toHaveLength(2);
  expect(warned.filter((w) => w.includes('file=targets.yaml,line=5,col=19'))).toHaveLength(1);
  expect(warned[1]).toContain("judge_target 'grader' is ignored");
  expect(github.state.comments.at(-1)!.body).toContain('rubric-eval: **fail**');

  // The cache: the author fills it with their own judge and key (a valid MAC under a key CI does
  // not hold) and commits it with the same judge_target. CI never serves it.
  const cached = { ...inputs, 'cache-dir': 'committed-cache' };
  const authored = await runAction({
    workspace,
    inputs: { ...cached, 'judge-base-url': authorJudge.url, 'judge-api-key': AUTHOR_KEY },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(authored.outputs.verdict).toBe('pass');
  expect(cacheEntries(path.join(workspace, 'committed-cache'))).toHaveLength(1);
  const before = ciJudge.state.requests.length;
  const ci = await runAction({ workspace, inputs: cached, event: PR_EVENT, apiUrl: github.url });
  expect(ciJudge.state.requests.length - before).toBe(1);
  expect(ci.outputs.verdict).toBe('fail');
  expect(readResults(workspace).usage).toMatchObject({ judge_calls: 1, cached_calls: 0 });
  expect(
    authorJudge.state.requests.filter((r) => r.headers.authorization === `Bearer ${AUTHOR_KEY}`),
  ).toHaveLength(
    1, // the author's own run only
  );
});
