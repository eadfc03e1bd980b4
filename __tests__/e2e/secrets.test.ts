import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';

const JUDGE_KEY = 'sk-judge-SECRET-7f3a9c1e';
const GH_TOKEN = 'ghs_TOKEN_SECRET_42b8d6e0';
const MY_SECRET = 'my-own-SECRET-value-9d1c';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

test('a gate and a CLI target that print every secret: none reaches the comment, summary, results, annotations or logs; gates never see the token or key', async () => {
  judge = await startOpenAIServer();
  github = await startGitHubServer();
  const root = tmpDir('re-secrets-');
  const leak = `echo "judge=$INPUT_JUDGE-API-KEY key=${JUDGE_KEY} token=${GH_TOKEN} mine=$MY_SECRET env_token=$GITHUB_TOKEN"; env | grep -E 'INPUT_|GITHUB_TOKEN|sk-judge|ghs_' || echo 'no token in env'`;
  writeFileSync(
    path.join(root, 'targets.yaml'),
    `targets:\n  - name: default\n    provider: cli\n    command_template: ${JSON.stringify(leak)}\n`,
  );
  writeFileSync(
    path.join(root, 'suite.yaml'),
    'evalcases:\n  - id: leaky\n    input: q\n    rubrics: [Answers]\n',
  );
  writeFileSync(path.join(root, 'RUBRIC.md'), `## Gates\n- \`${leak}; exit 1\`\n`);
  const run = await runAction({
    workspace: root,
    inputs: {
      suites: 'suite.yaml',
      rubric: 'RUBRIC.md',
      'judge-base-url': judge.url,
      'judge-api-key': JUDGE_KEY,
      'github-token': GH_TOKEN,
    },
    env: { MY_SECRET, GITHUB_TOKEN: GH_TOKEN },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.code).toBe(1);
  const results = readFileSync(path.join(root, 'rubric-eval-results.json'), 'utf8');
  const comment = github.state.comments[0]!.body;
  // The answer and the gate output were kept, redacted.
  expect(results).toContain('key=*** token=*** mine=***');
  expect(results).toContain('no token in env');
  expect(comment).toContain('key=*** token=*** mine=***');
  const logs = run.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  for (const secret of [JUDGE_KEY, GH_TOKEN, MY_SECRET]) {
    for (const [where, text] of Object.entries({
      results,
      comment,
      summary: run.summary,
      logs,
      stderr: run.stderr,
    }))
      expect([where, text.includes(secret)]).toEqual([where, false]);
  }
  // The runner masks what we registered.
  expect(run.stdout).toContain(`::add-mask::${JUDGE_KEY}`);
  expect(run.stdout).toContain(`::add-mask::${GH_TOKEN}`);
  // The judge got the key (it needs it); nothing else did.
  expect(judge.state.requests[0]!.headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
});
