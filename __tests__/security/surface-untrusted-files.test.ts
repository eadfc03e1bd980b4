import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';

let github: FakeGitHub;
afterEach(async () => github?.close());

/** Two cases graded by a code judge (no model), and a rubric with one gate. */
function repo(): string {
  const root = hostileRepo({
    suite: `evalcases:\n${['one', 'two']
      .map(
        (id) =>
          `  - id: ${id}\n    input: q\n    execution:\n      evaluators:\n        - { name: ok, type: code_judge, script: node judge.mjs }\n`,
      )
      .join('')}`,
    files: {
      'judge.mjs': 'process.stdout.write(JSON.stringify({ score: 1 }));\n',
      'RUBRIC.md': '## Gates\n- `node -e "process.exit(0)"`\n',
    },
  });
  mkdirSync(path.join(root, 'shards'));
  return root;
}

async function action(workspace: string, inputs: Record<string, string>) {
  github = await startGitHubServer();
  const run = await runAction({
    workspace,
    inputs: { 'github-token': 'ghs_workflow_token_0', ...inputs },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  const comments = github.state.comments.map((c) => c.body);
  await github.close();
  return { ...run, comment: comments.at(-1) ?? '' };
}

/** Live markup a hostile file could carry into the comment: a team mention, a comment opener, a link. */
const LIVE = ['@org/team', '<!-- x', '](https://evil.example)', '<img'];

test('a merge refuses a shard file whose fields are not of their type, naming file and field: nothing of it reaches the comment live', async () => {
  const workspace = repo();
  for (const i of [1, 2]) {
    const shard = await action(workspace, {
      suites: 'suite.yaml',
      rubric: 'RUBRIC.md',
      shard: `${i}/2`,
      'results-file': `shards/${i}.json`,
    });
    expect(shard.code).toBe(0);
  }
  // What a step running the PR's code can do to a shard file before the merge job reads it.
  const file = path.join(workspace, 'shards/1.json');
  const tampered = JSON.parse(readFileSync(file, 'utf8')) as {
    rubric: { counts: Record<string, unknown>; gates: Record<string, unknown>[]; judge_verdict: unknown };
  };
  tampered.rubric.counts.gates_passed = '1 @org/team <!-- x';
  tampered.rubric.gates[0]!.exit_code = '[pwned](https://evil.example) <img src=x>';
  tampered.rubric.judge_verdict = '@org/team';
  writeFileSync(file, JSON.stringify(tampered));

  const merged = await action(workspace, { merge: 'shards/*.json', 'results-file': 'merged.json' });
  expect(merged.code).toBe(1);
  expect(merged.outputs.verdict).toBe('fail');
  const results = readResults(workspace, 'merged.json');
  expect(results.errors[0]).toMatch(
    /^shards\/1\.json: not a rubric-eval results file \(rubric\.gates\.0\.exit_code: Invalid input: expected number, received string\)$/,
  );
  for (const text of [merged.comment, merged.summary])
    for (const live of LIVE) expect([live, text.includes(live)]).toEqual([live, false]);
  expect(merged.comment).toContain('Nothing was judged');
});

test('an answers file with two lines for one case is refused, naming both lines; nothing is judged', async () => {
  const workspace = repo();
  writeFileSync(
    path.join(workspace, 'answers.jsonl'),
    [
      { eval_id: 'one', candidate_answer: 'first' },
      { eval_id: 'two', candidate_answer: 'b' },
      { eval_id: 'one', candidate_answer: 'the one the PR wants graded' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const run = await action(workspace, { suites: 'suite.yaml', 'answers-file': 'answers.jsonl' });
  expect(run.code).toBe(1);
  expect(run.outputs.verdict).toBe('fail');
  expect(readResults(workspace).errors).toEqual([
    "answers.jsonl:3:1 duplicate-id: two answers for 'one': lines 1 and 3; keep one",
  ]);
  expect(readResults(workspace).suites.flatMap((s) => s.cases)).toEqual([]);
  expect(run.stdout).toContain('::error title=rubric-eval%3A duplicate-id,file=answers.jsonl,line=3');
});
