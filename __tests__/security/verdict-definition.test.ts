import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';

let github: FakeGitHub;
afterEach(async () => github?.close());

/** A case graded by a code judge only (no model), answered by a cli target. */
const SUITE = `evalcases:
  - id: graded
    input: What is 2 + 2?
    execution:
      evaluators:
        - name: exact
          type: code_judge
          script: node judges/exact.mjs
  - id: answered
    input: What is 3 + 3?
    execution:
      evaluators:
        - name: exact
          type: code_judge
          script: node judges/six.mjs
`;
const judgeScript = (score: string) => `process.stdout.write(JSON.stringify({ score: ${score} }));\n`;
const targets = (command: string) =>
  `targets:\n  - name: default\n    provider: cli\n    command_template: ${JSON.stringify(command)}\n`;

function repo(): string {
  const root = hostileRepo({ suite: SUITE, files: { 'targets.yaml': targets('echo 5') } });
  mkdirSync(path.join(root, 'judges'));
  writeFileSync(path.join(root, 'judges/exact.mjs'), judgeScript('0'));
  writeFileSync(
    path.join(root, 'judges/six.mjs'),
    "let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => process.stdout.write(JSON.stringify({ score: s.includes('6') ? 1 : 0 })));\n",
  );
  return root;
}

async function run(workspace: string, baseline = 'off') {
  github = await startGitHubServer();
  const r = await runAction({
    workspace,
    inputs: { suites: 'suite.yaml', 'github-token': 'ghs_workflow_token_0', baseline },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  const comment = github.state.comments.at(-1)?.body ?? '';
  await github.close();
  return { ...r, comment };
}

const changes = (r: RunResults) => r.suites[0]!.cases.map((c) => [c.id, c.verdict, c.baseline?.change]);

test('a PR that rewrites the grader script or the target’s command reads as redefined, never as fixed; a baseline from before the change compares as redefined, said once', async () => {
  const workspace = repo();
  const base = await run(workspace);
  expect(base.outputs.verdict).toBe('fail');
  mkdirSync(path.join(workspace, 'base'));
  copyFileSync(path.join(workspace, 'rubric-eval-results.json'), path.join(workspace, 'base/results.json'));

  // The PR: the code judge now always says 1, and the target now prints what the other judge wants.
  writeFileSync(path.join(workspace, 'judges/exact.mjs'), judgeScript('1'));
  writeFileSync(path.join(workspace, 'targets.yaml'), targets('echo 6'));
  const pr = await run(workspace, 'base/results.json');
  const results = readResults(workspace);
  expect(changes(results)).toEqual([
    ['graded', 'pass', 'redefined'],
    ['answered', 'pass', 'redefined'],
  ]);
  expect(results.baseline!.changes).toMatchObject({ fixed: 0, redefined: 2 });
  expect(pr.comment).toMatch(/vs file in this PR `base\/results\.json`: 2 redefined/);
  expect(pr.comment).not.toContain('fixed');

  // Unchanged grader and target: the same hashes, compared as usual.
  writeFileSync(path.join(workspace, 'judges/exact.mjs'), judgeScript('0'));
  writeFileSync(path.join(workspace, 'targets.yaml'), targets('echo 5'));
  await run(workspace, 'base/results.json');
  expect(changes(readResults(workspace))).toEqual([
    ['graded', 'fail', 'same'],
    ['answered', 'fail', 'same'],
  ]);

  // A results file written before the hashes covered scripts and targets: every case redefined,
  // and the reason said once in the comment and once in the log, not once per case.
  const older = JSON.parse(readFileSync(path.join(workspace, 'base/results.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  delete older.definition_version;
  writeFileSync(path.join(workspace, 'base/results.json'), JSON.stringify(older));
  const again = await run(workspace, 'base/results.json');
  expect(changes(readResults(workspace))).toEqual([
    ['graded', 'fail', 'redefined'],
    ['answered', 'fail', 'redefined'],
  ]);
  expect(again.comment.match(/definition hashes are of an older rubric-eval/g)).toHaveLength(1);
  expect(again.stdout.match(/definition hashes are of an older rubric-eval/g)).toHaveLength(1);
});
