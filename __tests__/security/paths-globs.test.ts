import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

test('a link to / in the checkout is not walked by a suite glob: only the workspace’s suites run, at once', async () => {
  judge = await startOpenAIServer();
  github = await startGitHubServer();
  const workspace = hostileRepo();
  mkdirSync(path.join(workspace, 'evals'));
  renameSync(path.join(workspace, 'suite.yaml'), path.join(workspace, 'evals/suite.yaml'));
  symlinkSync('/', path.join(workspace, 'evals/root'));
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'evals/**/*.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-key-0007',
      'github-token': 'ghs_workflow_token_0',
      'cache-dir': '',
    },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  const results = readResults(workspace);
  expect(results.errors).toEqual([]);
  expect(results.suites.map((s) => s.path)).toEqual(['evals/suite.yaml']);
  expect(run.durationMs).toBeLessThan(10_000);
  expect(run.code).toBe(0);
  // Nothing from outside the workspace is named anywhere the PR can read.
  expect(github.state.comments.at(-1)!.body).not.toContain('evals/root/');
});
