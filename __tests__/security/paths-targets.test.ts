import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

/** A targets file outside the workspace whose target would leave a mark if it ever ran. */
function outsideTargets(): { file: string; mark: string } {
  const dir = tmpDir('re-outside-');
  const mark = path.join(dir, 'target-ran');
  const file = path.join(dir, 'targets.yaml');
  writeFileSync(
    file,
    `targets:\n  - name: default\n    provider: cli\n    command_template: ${JSON.stringify(`touch ${mark}; echo 4`)}\n`,
  );
  return { file, mark };
}

test.each([
  ['a path with ..', (ws: string, file: string) => path.relative(ws, file)],
  [
    'a symlink in the checkout',
    (ws: string, file: string) => {
      mkdirSync(path.join(ws, 'config'));
      symlinkSync(file, path.join(ws, 'config/targets.yaml'));
      return 'config/targets.yaml';
    },
  ],
  ['an absolute path', (_ws: string, file: string) => file],
])(
  'the targets input resolving outside the workspace through %s is refused before anything runs',
  async (_name, place) => {
    judge = await startOpenAIServer();
    github = await startGitHubServer();
    const workspace = hostileRepo();
    const outside = outsideTargets();
    const run = await runAction({
      workspace,
      inputs: {
        suites: 'suite.yaml',
        targets: place(workspace, outside.file),
        'judge-base-url': judge.url,
        'judge-api-key': 'sk-judge-key-0006',
        'github-token': 'ghs_workflow_token_0',
        'cache-dir': '',
      },
      event: PR_EVENT,
      apiUrl: github.url,
    });
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    const results = readResults(workspace);
    expect(results.errors.join('\n')).toMatch(
      /escapes-workspace: targets file resolves outside the workspace/,
    );
    expect(existsSync(outside.mark)).toBe(false);
    expect(judge.state.requests).toHaveLength(0);
    expect(github.state.comments.at(-1)!.body).toContain('rubric-eval: **fail**');
  },
);
