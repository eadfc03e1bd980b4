/**
 * What the user wrote is what runs (issue 25), through the bundled CLI: a gate's code span is read
 * as CommonMark reads it, a fence hides what it holds, and a CLI target gets its prompt verbatim.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI | undefined;
afterEach(async () => {
  await judge?.close();
  judge = undefined;
});

const DIFF = 'diff --git a/src.txt b/src.txt\n--- a/src.txt\n+++ b/src.txt\n@@ -1 +1 @@\n-old\n+TODO\n';
const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-written-000000' };

function repo(files: Record<string, string>): string {
  const root = tmpDir('re-written-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
  return root;
}
const results = (root: string) =>
  JSON.parse(readFileSync(path.join(root, 'results.json'), 'utf8')) as RunResults;

test('a gate in a two-backtick code span runs whole, and fails when the file holds TODO', async () => {
  const root = repo({
    'src.txt': 'TODO\n',
    'pr.diff': DIFF,
    'RUBRIC.md': '## Gates\n- `` ! grep -q `printf TODO` src.txt ``\n',
  });
  const r = await runCli(['run', '--rubric', 'RUBRIC.md', '--diff', 'pr.diff', '--out', 'results.json'], {
    cwd: root,
    env,
  });
  const rubric = results(root).rubric!;
  expect(rubric.gates).toEqual([
    expect.objectContaining({ command: '! grep -q `printf TODO` src.txt', verdict: 'fail', exit_code: 1 }),
  ]);
  expect(rubric.verdict).toBe('fail');
  expect(r.code).toBe(1);
});

test('a gate whose code span is never closed stops the run with file:line:col, never a shorter command', async () => {
  const root = repo({
    'pr.diff': DIFF,
    'RUBRIC.md': '## Gates\n- ``touch ran `x` now`\n',
  });
  const r = await runCli(['run', '--rubric', 'RUBRIC.md', '--diff', 'pr.diff', '--out', 'results.json'], {
    cwd: root,
    env,
  });
  expect(r.code).toBe(2);
  expect(r.stdout + r.stderr).toContain('RUBRIC.md:2:3 unclosed-code-span');
  expect(existsSync(path.join(root, 'x'))).toBe(false);
  expect(results(root).verdict).toBe('fail');
});

test('a ``` line inside a ~~~ fence runs no gate and keeps the must-have criterion judged', async () => {
  judge = await startOpenAIServer();
  const root = repo({
    'pr.diff': DIFF,
    'RUBRIC.md': [
      '## Gates',
      '- `true`',
      '',
      '~~~',
      '```',
      '- `touch ran-inside-fence`',
      '~~~',
      '',
      '## Criteria',
      '- The change keeps the public API',
      '',
    ].join('\n'),
  });
  const r = await runCli(
    [
      'run',
      '--rubric',
      'RUBRIC.md',
      '--diff',
      'pr.diff',
      '--out',
      'results.json',
      '--judge-base-url',
      judge.url,
      '--no-cache',
    ],
    { cwd: root, env },
  );
  expect(existsSync(path.join(root, 'ran-inside-fence'))).toBe(false);
  const rubric = results(root).rubric!;
  expect(rubric.gates.map((g) => g.command)).toEqual(['true']);
  expect(rubric.checks).toEqual([expect.objectContaining({ id: 'must-1', satisfied: true })]);
  expect(r.stderr).not.toContain('gate-without-backticks');
  const asked = JSON.stringify(judge.state.requests.map((q) => q.body.messages));
  expect(asked).toContain('The change keeps the public API');
  expect(asked).not.toContain('touch ran-inside-fence');
  expect(r.code).toBe(0);
});

test("a CLI target receives `price $' now` and `say {EVAL_ID} please` byte for byte", async () => {
  judge = await startOpenAIServer();
  const root = repo({
    'record.mjs': [
      "import { appendFileSync, writeFileSync } from 'node:fs';",
      'const [id, prompt, out] = process.argv.slice(2);',
      "appendFileSync('received.jsonl', JSON.stringify({ id, prompt }) + '\\n');",
      "writeFileSync(out, 'answered ' + id);",
    ].join('\n'),
    'targets.yaml': [
      'targets:',
      '  - name: default',
      '    provider: cli',
      '    command_template: node record.mjs {EVAL_ID} {PROMPT} {OUTPUT_FILE}',
      '',
    ].join('\n'),
    'suite.yaml': [
      'evalcases:',
      '  - id: p3',
      '    expected_outcome: Answers',
      `    input: "price $' now"`,
      '  - id: p4',
      '    expected_outcome: Answers',
      '    input: "say {EVAL_ID} please"',
      '',
    ].join('\n'),
  });
  const r = await runCli(
    [
      'run',
      'suite.yaml',
      '--out',
      'results.json',
      '--judge-base-url',
      judge.url,
      '--no-cache',
      '--concurrency',
      '1',
    ],
    { cwd: root, env },
  );
  const received = readFileSync(path.join(root, 'received.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; prompt: string });
  expect(received.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
    { id: 'p3', prompt: "price $' now" },
    { id: 'p4', prompt: 'say {EVAL_ID} please' },
  ]);
  expect(results(root).suites[0]!.cases.map((c) => [c.id, c.answer])).toEqual([
    ['p3', 'answered p3'],
    ['p4', 'answered p4'],
  ]);
  expect(r.code).toBe(0);
});

test('the table is coloured when FORCE_COLOR asks, and plain into a pipe or with NO_COLOR', async () => {
  const root = repo({ 'pr.diff': DIFF, 'RUBRIC.md': '## Gates\n- `true`\n' });
  const args = ['run', '--rubric', 'RUBRIC.md', '--diff', 'pr.diff'];
  const forced = await runCli(args, { cwd: root, env: { ...env, FORCE_COLOR: '1' } });
  const piped = await runCli(args, { cwd: root, env });
  const off = await runCli(args, { cwd: root, env: { ...env, FORCE_COLOR: '0', TERM: 'xterm-256color' } });
  expect(forced.stdout).toContain('\u001b[32mPASS\u001b[39m');
  expect(piped.stdout).not.toContain('\u001b[');
  expect(off.stdout).not.toContain('\u001b[');
  expect(piped.stdout).toContain('PASS  gate  true');
});
