import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
let author: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await author?.close();
  await github?.close();
});

const RUNTIME_TOKEN = 'runtime-token-3f9b1c7e5a';
const OIDC_TOKEN = 'oidc-request-token-8d2e4a';
const JUDGE_KEY = 'sk-judge-key-b41c9e2';
const TARGET_VALUE = 'target-own-value-6c1f0d';
const INPUT_VALUE = 'input-value-token-0a9f3e';

/** An openai target at the author's endpoint whose key is a template of `variable`. */
const stealing = (endpoint: string, variable: string) =>
  `targets:\n  - name: default\n    provider: openai\n    endpoint: ${endpoint}\n    api_key: \${{ ${variable} }}\n    model: gpt-4.1-mini\n`;

async function runWith(workspace: string) {
  return runAction({
    workspace,
    inputs: {
      suites: 'suite.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': JUDGE_KEY,
      'github-token': 'ghs_workflow_token_0',
    },
    env: {
      ACTIONS_RUNTIME_TOKEN: RUNTIME_TOKEN,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: OIDC_TOKEN,
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.example/',
      // The workflow also exposes the judge's key under a name of its own.
      OPENAI_API_KEY: JUDGE_KEY,
      TARGET_VALUE,
      // An input of the action (the runner passes every input as INPUT_<NAME>).
      INPUT_DEPLOY_TOKEN: INPUT_VALUE,
    },
    event: PR_EVENT,
    apiUrl: github.url,
  });
}

test.each([
  ['the runner’s runtime token', 'ACTIONS_RUNTIME_TOKEN', RUNTIME_TOKEN],
  ['the OIDC request token', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', OIDC_TOKEN],
  ['the judge’s key under another name', 'OPENAI_API_KEY', JUDGE_KEY],
  ['an action input', 'INPUT_DEPLOY_TOKEN', INPUT_VALUE],
])(
  'a template cannot read %s: the run fails before any call, naming the variable; the author’s endpoint hears nothing',
  async (_, variable, secret) => {
    judge = await startOpenAIServer();
    author = await startOpenAIServer();
    github = await startGitHubServer();
    const workspace = hostileRepo({ files: { 'targets.yaml': stealing(author.url, variable) } });
    const run = await runWith(workspace);
    expect(author.state.requests).toHaveLength(0);
    expect(judge.state.requests).toHaveLength(0);
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    const results = readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8');
    expect(JSON.parse(results).errors).toEqual([
      `targets.yaml:5:14 target 'default': withheld-env: environment variable ${variable} (for 'api_key') is withheld from targets: a template sees only what a gate's process gets (no GitHub token, judge key, INPUT_* or ACTIONS_* variable); give the target a variable of its own`,
    ]);
    const logs = run.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    for (const text of [results, logs, run.stderr, run.summary, github.state.comments[0]?.body ?? ''])
      expect(text.includes(secret)).toBe(false);
  },
);

test('a value a template resolved is a secret: masked in the runner’s log and redacted from the answer, the judge’s prompt, results, comment and summary', async () => {
  judge = await startOpenAIServer();
  github = await startGitHubServer();
  const workspace = hostileRepo({
    files: {
      'targets.yaml': `targets:\n  - name: default\n    provider: mock\n    response: \${{ TARGET_VALUE }}\n`,
    },
  });
  const run = await runWith(workspace);
  expect(run.stdout).toContain(`::add-mask::${TARGET_VALUE}`);
  const results = readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8');
  expect(JSON.parse(results).errors).toEqual([]);
  expect(JSON.parse(results).suites[0].cases[0].answer).toBe('***');
  const logs = run.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  expect(judge.state.requests).toHaveLength(1);
  for (const [where, text] of Object.entries({
    results,
    logs,
    summary: run.summary,
    comment: github.state.comments[0]!.body,
    judge: JSON.stringify(judge.state.requests.map((r) => r.body)),
  }))
    expect([where, text.includes(TARGET_VALUE)]).toEqual([where, false]);
});
