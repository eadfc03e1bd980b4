import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * AgentV v2.6.1's loader and evaluator details (issue 24), through the bundled CLI: what a suite
 * written for AgentV loads as, what its code judges receive and what the results file keeps.
 * Each expectation is AgentV's behaviour at that tag (its shorthand expansion, file resolver,
 * code evaluator, prompt builder and orchestrator), stricter only where the README says so.
 */

let judge: FakeOpenAI | undefined;
afterEach(async () => {
  await judge?.close();
  judge = undefined;
});

/** A code judge that records its stdin payload beside the suite and reports `details`. */
const RECORDER = `import { readFileSync, writeFileSync } from 'node:fs';
const payload = JSON.parse(readFileSync(0, 'utf8'));
writeFileSync(process.argv[2], JSON.stringify(payload));
console.log(JSON.stringify({ score: 1, hits: ['recorded'], details: { metrics: { tp: 5, fp: 1 }, f1: 0.77 } }));
`;

/** A workspace with a mock target answering every case `answer` and the recorder judge. */
function workspace(suite: string, ids: string[], files: Record<string, string> = {}): string {
  const root = tmpDir('re-details-');
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  mkdirSync(path.join(root, '.agentv'), { recursive: true });
  writeFileSync(
    path.join(root, '.agentv/targets.yaml'),
    `targets:\n  - name: default\n    provider: mock\n    responses:\n${ids.map((id) => `      ${id}: answer`).join('\n')}\n`,
  );
  writeFileSync(path.join(root, 'record.mjs'), RECORDER);
  writeFileSync(path.join(root, 'evals/suite.yaml'), suite);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/**
 * The recorder as a case's only evaluator; its payload lands in `evals/payload-<id>.json` (the
 * judge runs in the suite's folder; a bare name is not taken for a script file that must exist).
 */
const recorder = (id: string, extra = '') =>
  `    execution:\n      evaluators:\n        - { name: rec, type: code_judge, script: [node, ../record.mjs, payload-${id}.json]${extra} }\n`;

const payloadOf = (root: string, id: string) =>
  JSON.parse(readFileSync(path.join(root, 'evals', `payload-${id}.json`), 'utf8')) as Record<string, unknown>;

async function run(root: string, args: string[] = []): Promise<RunResults> {
  const r = await runCli(['run', 'evals/suite.yaml', '--no-cache', '--out', 'results.json', ...args], {
    cwd: root,
    env: { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-details-test-0000' },
  });
  expect(r.stderr).not.toMatch(/internal error|TypeError/i);
  return JSON.parse(readFileSync(path.join(root, 'results.json'), 'utf8')) as RunResults;
}

const validate = (root: string) => runCli(['validate', 'evals/suite.yaml'], { cwd: root });

describe('1. canonical keys win over their aliases', () => {
  test('input_messages and expected_messages are used; the aliases are named in a warning at their line', async () => {
    const root = workspace(
      `evalcases:
  - id: both
    expected_outcome: Answers
    input_messages: [{ role: user, content: Canonical question }]
    input: Ignored question
    expected_messages: [{ role: assistant, content: Canonical answer }]
    expected_output: 42
${recorder('both')}`,
      ['both'],
    );
    const v = await validate(root);
    expect(v.code).toBe(0);
    const out = v.stdout + v.stderr;
    expect(out).toContain(
      "evals/suite.yaml:5:5 warning: case 'both': alias-ignored: 'input' is ignored: 'input_messages' is given and wins (as in AgentV)",
    );
    // The ignored alias is not even type-checked: AgentV never reads it.
    expect(out).toContain(
      "evals/suite.yaml:7:5 warning: case 'both': alias-ignored: 'expected_output' is ignored: 'expected_messages' is given and wins (as in AgentV)",
    );
    const results = await run(root);
    expect(results.suites[0]!.cases[0]!.verdict).toBe('pass');
    const p = payloadOf(root, 'both');
    expect(p.input_messages).toEqual([{ role: 'user', content: 'Canonical question' }]);
    expect(p.expected_messages).toEqual([{ role: 'assistant', content: 'Canonical answer' }]);
    expect(p.reference_answer).toBe('Canonical answer');
  });
});

describe('2. expected_output keeps its shape in the code judge payload', () => {
  test('an object stays an object, a list of non-messages is one assistant message, tool_calls are kept', async () => {
    const root = workspace(
      `evalcases:
  - id: object
    expected_outcome: Classifies
    input: Classify the risk
    expected_output: { riskLevel: High, confidence: 0.95 }
${recorder('object')}
  - id: list
    expected_outcome: Lists
    input: List the items
    expected_output: [{ item: 1 }, { item: 2 }]
${recorder('list')}
  - id: tools
    expected_outcome: Reads the config
    input: Read the config
    expected_messages:
      - role: assistant
        tool_calls: [{ tool: Read, input: { file_path: config.json } }]
${recorder('tools')}
  - id: message-object
    expected_outcome: Answers
    input: Say hi
    expected_output: { role: assistant, content: hi }
${recorder('message-object')}`,
      ['object', 'list', 'tools', 'message-object'],
    );
    expect((await validate(root)).code).toBe(0);
    await run(root);
    expect(payloadOf(root, 'object').expected_messages).toEqual([
      { role: 'assistant', content: { riskLevel: 'High', confidence: 0.95 } },
    ]);
    expect(payloadOf(root, 'list').expected_messages).toEqual([
      { role: 'assistant', content: [{ item: 1 }, { item: 2 }] },
    ]);
    const tools = payloadOf(root, 'tools');
    expect(tools.expected_messages).toEqual([
      { role: 'assistant', tool_calls: [{ tool: 'Read', input: { file_path: 'config.json' } }] },
    ]);
    // A turn with only tool calls: its calls are the reference answer (AgentV).
    expect(JSON.parse(tools.reference_answer as string)).toEqual([
      { tool: 'Read', input: { file_path: 'config.json' } },
    ]);
    // An object with a role is a message, not structured content.
    expect(payloadOf(root, 'message-object').expected_messages).toEqual([
      { role: 'assistant', content: 'hi' },
    ]);
  });

  test('JSONL: the same object reaches the code judge as an object', async () => {
    const root = workspace('evalcases: []\n', ['j']);
    writeFileSync(
      path.join(root, 'evals/suite.jsonl'),
      `${JSON.stringify({
        id: 'j',
        expected_outcome: 'Extracts',
        input: 'Extract the invoice',
        expected_output: { invoice: { number: 'INV-1', total: 10.5 } },
        execution: {
          evaluators: [
            { name: 'rec', type: 'code_judge', script: ['node', '../record.mjs', 'payload-j.json'] },
          ],
        },
      })}\n`,
    );
    const r = await runCli(['run', 'evals/suite.jsonl', '--no-cache', '--out', 'results.json'], {
      cwd: root,
    });
    expect(r.code).toBe(0);
    expect(payloadOf(root, 'j').expected_messages).toEqual([
      { role: 'assistant', content: { invoice: { number: 'INV-1', total: 10.5 } } },
    ]);
  });
});

describe('3. misshapen inputs are refused, naming the key', () => {
  test('input: [] is a case without input; non-list message keys and a wrong input type name their key', async () => {
    const root = workspace(
      `evalcases:
  - id: empty
    expected_outcome: x
    input: []
  - id: string-messages
    expected_outcome: x
    input_messages: What is 2+2?
  - id: object-expected
    expected_outcome: x
    input: hi
    expected_messages: { role: assistant, content: "4" }
  - id: number-input
    expected_outcome: x
    input: 42
  - id: bad-item
    expected_outcome: x
    input: hi
    expected_output: [{ role: assistant, content: 4 }]
`,
      [],
    );
    const v = await validate(root);
    expect(v.code).toBe(2);
    const lines = (v.stdout + v.stderr).split('\n');
    const has = (s: string) => expect(lines).toContain(s);
    has(
      "evals/suite.yaml:4:12 case 'empty': required: `input` is an empty list: a case needs input (what is the question?)",
    );
    has(
      "evals/suite.yaml:7:21 case 'string-messages': type: input_messages must be a list of {role, content} messages",
    );
    has(
      "evals/suite.yaml:11:24 case 'object-expected': type: expected_messages must be a list of {role, content} messages",
    );
    has(
      "evals/suite.yaml:14:12 case 'number-input': type: input must be a string (one user message) or a list of {role, content} messages",
    );
    // A list whose first item is a message is a message list: its invalid entries are refused.
    expect(
      lines.some((l) => l.startsWith("evals/suite.yaml:18:51 case 'bad-item': type: content must be")),
    ).toBe(true);
    expect(lines.filter((l) => /^evals\/suite\.yaml:\d+:\d+ case /.test(l))).toHaveLength(5);
  });
});

describe('4. file references resolve as AgentV resolves them', () => {
  test('a leading separator is trimmed and searched from the suite folder up; an absolute path inside the workspace is used', async () => {
    const root = workspace('', ['slash', 'abs']);
    writeFileSync(path.join(root, 'notes.txt'), 'from the root');
    writeFileSync(path.join(root, 'evals/notes.txt'), 'beside the suite');
    writeFileSync(path.join(root, 'docs.txt'), 'only at the root');
    writeFileSync(
      path.join(root, 'evals/suite.yaml'),
      `evalcases:
  - id: slash
    expected_outcome: x
    input:
      - role: user
        content: [{ type: file, value: /notes.txt }, { type: file, value: /docs.txt }]
${recorder('slash')}
  - id: abs
    expected_outcome: x
    input:
      - role: user
        content: [{ type: file, value: ${JSON.stringify(path.join(root, 'docs.txt'))} }]
${recorder('abs')}`,
    );
    expect((await validate(root)).code).toBe(0);
    await run(root);
    expect(payloadOf(root, 'slash').input_files).toEqual([
      path.join(root, 'evals/notes.txt'),
      path.join(root, 'docs.txt'),
    ]);
    expect(payloadOf(root, 'abs').input_files).toEqual([path.join(root, 'docs.txt')]);
  });

  test('an absolute path outside the workspace is never read', async () => {
    const outside = tmpDir('re-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 'not for the judge');
    const file = path.join(outside, 'secret.txt');
    const root = workspace(
      `evalcases:
  - id: outside
    expected_outcome: x
    input:
      - role: user
        content: [{ type: file, value: ${JSON.stringify(file)} }]
`,
      [],
    );
    const v = await validate(root);
    expect(v.code).toBe(2);
    const trimmed = file.slice(1);
    expect(v.stdout + v.stderr).toContain(
      `evals/suite.yaml:6:40 case 'outside': missing-file: file '${file}' not found (looked for evals/${trimmed}, ${trimmed})`,
    );
  });
});

describe('6. every turn of a conversation reaches the judge with its role marker', () => {
  test('the system turn too', async () => {
    judge = await startOpenAIServer();
    const root = workspace(
      `evalcases:
  - id: turns
    expected_outcome: Answers 4
    input_messages:
      - { role: system, content: You are a terse calculator. }
      - { role: user, content: What is 2+2? }
`,
      ['turns'],
    );
    const results = await run(root, ['--judge-base-url', judge.url]);
    expect(results.suites[0]!.cases[0]!.verdict).toBe('pass');
    const prompt = judge.state.requests
      .flatMap((r) => (r.body as { messages: { content: string }[] }).messages.map((m) => m.content))
      .join('\n');
    expect(prompt).toContain('@[System]:\nYou are a terse calculator.\n\n@[User]:\nWhat is 2+2?');
  });
});

describe('7. code_judge: details are kept; config is null without extra keys', () => {
  test('the results file keeps the details object; the payload says config: null or the extra keys', async () => {
    const root = workspace(
      `evalcases:
  - id: plain
    expected_outcome: x
    input: hi
${recorder('plain')}
  - id: configured
    expected_outcome: x
    input: hi
${recorder('configured', ', threshold: 3')}`,
      ['plain', 'configured'],
    );
    const results = await run(root);
    const [plain, configured] = results.suites[0]!.cases;
    expect(plain!.evaluators[0]!.details).toEqual({ metrics: { tp: 5, fp: 1 }, f1: 0.77 });
    expect(configured!.evaluators[0]!.details).toEqual({ metrics: { tp: 5, fp: 1 }, f1: 0.77 });
    const p = payloadOf(root, 'plain');
    expect('config' in p && p.config).toBeNull();
    expect(payloadOf(root, 'configured').config).toEqual({ threshold: 3 });
  });
});

describe('8. a case whose evaluators all weigh 0 scores 0', () => {
  test('validate warns; the run scores the case 0, fail', async () => {
    const root = workspace(
      `evalcases:
  - id: weightless
    expected_outcome: x
    input: hi
${recorder('weightless', ', weight: 0')}
  - id: weighted
    expected_outcome: x
    input: hi
${recorder('weighted', ', weight: 2')}`,
      ['weightless', 'weighted'],
    );
    const v = await validate(root);
    expect(v.code).toBe(0);
    expect(v.stdout + v.stderr).toContain(
      "evals/suite.yaml:7:11 warning: case 'weightless': zero-weight: every evaluator of this case has weight 0: nothing is counted, so the case scores 0 and fails (as in AgentV)",
    );
    const results = await run(root);
    const [weightless, weighted] = results.suites[0]!.cases;
    expect(weightless).toMatchObject({ score: 0, verdict: 'fail' });
    expect(weightless!.evaluators[0]).toMatchObject({ score: 1, weight: 0 });
    expect(weighted).toMatchObject({ score: 1, verdict: 'pass' });
  });
});
