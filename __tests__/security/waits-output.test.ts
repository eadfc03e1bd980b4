import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { STDOUT_LIMIT } from '../../src/exec/run-command.js';
import { MAX_ANSWER_CHARS } from '../../src/evaluators/judged-answer.js';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

/** Peak resident memory of a process (VmHWM), sampled until it exits. */
function watchPeakMemory(pid: number): () => number {
  let peakKb = 0;
  const timer = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      clearInterval(timer);
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return peakKb * 1024;
  };
}

async function run(workspace: string, extra: Record<string, string> = {}) {
  judge = await startOpenAIServer();
  github = await startGitHubServer();
  let peak = () => 0;
  const r = await runAction({
    workspace,
    inputs: {
      suites: 'suite.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-key-0004',
      'github-token': 'ghs_workflow_token_0',
      'cache-dir': '',
      ...extra,
    },
    event: PR_EVENT,
    apiUrl: github.url,
    onStart: (pid) => (peak = watchPeakMemory(pid)),
  });
  return { ...r, peakBytes: peak() };
}

/** The longest message content the judge received. */
const longestPrompt = () =>
  Math.max(
    ...judge.state.requests.flatMap((q) =>
      (q.body.messages as { content: string }[]).map((m) => m.content.length),
    ),
  );

test('a CLI target that writes a 200 MB output file: read up to the stdout cap, judged on a capped answer, the cut recorded', async () => {
  // A sparse 200 MB file: no disk is spent, but every byte reads as a zero byte.
  const workspace = hostileRepo({ cli: 'truncate -s 200M {OUTPUT_FILE}' });
  const r = await run(workspace);
  expect(r.code).toBe(0);
  const c = readResults(workspace).suites[0]!.cases[0]!;
  expect(c.answer_cut).toEqual({ original_chars: STDOUT_LIMIT, kept_chars: MAX_ANSWER_CHARS });
  expect(c.answer!.length).toBeLessThan(MAX_ANSWER_CHARS + 200);
  expect(judge.state.requests).toHaveLength(1);
  expect(longestPrompt()).toBeLessThan(MAX_ANSWER_CHARS + 5000);
  // The whole run stays small: the file is never read past the cap.
  expect(r.peakBytes).toBeGreaterThan(0);
  expect(r.peakBytes).toBeLessThan(400 * 1024 * 1024);
});

test('a batching CLI target that writes a 200 MB output file: refused past the batch cap, never read whole', async () => {
  const workspace = hostileRepo({ cli: 'truncate -s 200M {OUTPUT_FILE}' });
  writeFileSync(
    path.join(workspace, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: cli\n    provider_batching: true\n    command_template: "truncate -s 200M {OUTPUT_FILE}"\n',
  );
  const r = await run(workspace);
  const c = readResults(workspace).suites[0]!.cases[0]!;
  expect(c.verdict).toBe('error');
  expect(c.error).toMatch(/wrote 209715200 bytes to \{OUTPUT_FILE\}, more than the 8388608 read/);
  expect(r.peakBytes).toBeLessThan(400 * 1024 * 1024);
  expect(judge.state.requests).toHaveLength(0);
});

test.each([
  ['a link to /dev/zero', 'ln -sf /dev/zero {OUTPUT_FILE}', 'a symlink, not a file: refused'],
  ['a link to a file of the runner', 'ln -sf /etc/hostname {OUTPUT_FILE}', 'a symlink, not a file: refused'],
  ['a FIFO nobody writes to', 'rm -f {OUTPUT_FILE}; mkfifo {OUTPUT_FILE}', 'not a regular file'],
])('an output file replaced by %s is refused at once: the case is an error', async (_name, cli, why) => {
  const workspace = hostileRepo({ cli });
  const r = await run(workspace);
  const c = readResults(workspace).suites[0]!.cases[0]!;
  expect(c.verdict).toBe('error');
  expect(c.error).toContain(why);
  expect(c.answer ?? '').toBe('');
  expect(r.durationMs).toBeLessThan(10_000);
  expect(r.code).toBe(1);
  expect(judge.state.requests).toHaveLength(0);
});

test('an answer from an answers file is capped before the judge, and the cut is recorded', async () => {
  const workspace = hostileRepo({
    files: {
      'answers.jsonl':
        JSON.stringify({ eval_id: 'sum', candidate_answer: `4${'!'.repeat(300_000)}END` }) + '\n',
    },
  });
  const r = await run(workspace, { 'answers-file': 'answers.jsonl' });
  expect(r.code).toBe(0);
  const c = readResults(workspace).suites[0]!.cases[0]!;
  expect(c.answer_cut).toEqual({ original_chars: 300_004, kept_chars: MAX_ANSWER_CHARS });
  expect(c.answer).toMatch(/^4!+\n\[… 200004 characters cut by rubric-eval/);
  expect(c.answer!.endsWith('!END')).toBe(true);
  expect(longestPrompt()).toBeLessThan(MAX_ANSWER_CHARS + 5000);
});

describe('input nested past any parser’s depth is a located error, and the results file is still written', () => {
  const n = 50_000;
  const deepArray = '['.repeat(n) + ']'.repeat(n);
  const deepObject = '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  test.each([
    [
      'suite.jsonl',
      `{"id": "sum", "input": "q", "expected_outcome": "x", "expected_output": ${deepObject}}\n`,
      /suite\.jsonl:1:\d+ too-deep/,
    ],
    [
      'targets.yaml',
      `targets:\n  - name: default\n    provider: mock\n    response: hi\n    extra: ${deepArray}\n`,
      /targets\.yaml:5:\d+ too-deep/,
    ],
    [
      'suite.yaml',
      `evalcases:\n  - id: sum\n    input: q\n    expected_outcome: x\n    expected_output: ${deepArray}\n`,
      /suite\.yaml:5:\d+ too-deep/,
    ],
    [
      'suite.yml',
      `evalcases:\n  - id: sum\n    input: q\n    expected_outcome: x\n    expected_output:\n${Array.from({ length: 150 }, (_, i) => `${' '.repeat(6 + 2 * i)}k${i}:`).join('\n')} end\n`,
      /suite\.yml:\d+:\d+ too-deep/,
    ],
  ])('%s', async (file, text, located) => {
    const workspace = hostileRepo();
    writeFileSync(path.join(workspace, file), text);
    const r = await run(workspace, { suites: file.startsWith('suite') ? file : 'suite.yaml' });
    expect(r.code).toBe(1);
    const results = readResults(workspace);
    expect(results.verdict).toBe('fail');
    expect(results.errors.join('\n')).toMatch(located);
    expect(results.errors.join('\n')).toContain('nested more than 100 levels deep');
    expect(r.stderr).not.toContain('Maximum call stack');
    expect(judge.state.requests).toHaveLength(0);
  });
});
