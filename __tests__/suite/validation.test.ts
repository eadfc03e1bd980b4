import { mkdtempSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { findSuiteFiles, loadSuites } from '../../src/suite/discover.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { Workspace } from '../../src/core/workspace.js';
import { FIXTURES } from '../helpers/paths.js';

const ws = new Workspace(FIXTURES);
const messages = (file: string) =>
  loadSuiteFile(path.join(FIXTURES, 'invalid', file), ws)
    .diagnostics.filter((d) => d.severity === 'error')
    .map(formatDiagnostic);

describe('score-range validation names the rule, file, line and column', () => {
  const all = messages('ranges.yaml');
  test.each([
    ["invalid/ranges.yaml:11:26 rubric 'factual_accuracy': overlap: [3, 6] overlaps [5, 7]"],
    ["invalid/ranges.yaml:17:26 rubric 'gaps': coverage: scores 4-6 of 0..10 are not covered by any band"],
    ["invalid/ranges.yaml:25:26 rubric 'out_of_bounds': bounds: [6, 12] is outside 0..10"],
    ["invalid/ranges.yaml:29:26 rubric 'fractional': integer: [0, 4.5] bounds must be integers"],
    ["invalid/ranges.yaml:35:26 rubric 'reversed': order: [5, 0] has min greater than max"],
    ["invalid/ranges.yaml:41:26 rubric 'no_outcome': empty-outcome: [0, 5] has no expected_outcome"],
  ])('%s', (expected) => {
    expect(all).toContain(expected);
  });
  test('nothing else is reported', () => {
    expect(all).toHaveLength(6);
  });
});

test('mixing checklist and score-range items is rejected with rule mixed', () => {
  expect(messages('mixed.yaml')).toEqual([
    "invalid/mixed.yaml:6:9 rubric 'depth': mixed: rubrics mix checklist items ('rubric-1') and score-range items ('depth'); use one kind per list, or two llm_judge evaluators",
  ]);
});

test('wrong types, missing fields, bad weights, duplicate ids and unknown evaluator types are all reported at once', () => {
  expect(messages('types.yaml')).toEqual([
    "invalid/types.yaml:4:12 case 'one': type: input must be a string (one user message) or a list of {role, content} messages",
    "invalid/types.yaml:11:5 case 2: required: missing required field 'id'",
    "invalid/types.yaml:17:17 case 'three': enum: evaluator type must be one of llm_judge, llm-judge, code_judge, code-judge, composite, field_accuracy, latency, cost, token_usage, tool_trajectory, execution_metrics (got 'llm_jduge'); did you mean 'llm_judge'?",
  ]);
});

test('semantic checks run once the structure is valid: weight and duplicate ids', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  const file = path.join(dir, 's.yaml');
  writeFileSync(
    file,
    'evalcases:\n  - id: one\n    input: hi\n    rubrics:\n      - id: a\n        expected_outcome: Good\n        weight: -1\n      - id: a\n        expected_outcome: Dup\n',
  );
  const d = loadSuiteFile(file, new Workspace(dir)).diagnostics.map(formatDiagnostic);
  expect(d).toEqual([
    "s.yaml:7:17 rubric 'a': weight: weight -1 must be a finite number >= 0",
    "s.yaml:8:9 rubric 'a': duplicate-id: id 'a' is already used by item 1 of this list",
  ]);
});

test('YAML syntax errors carry their position', () => {
  const d = messages('syntax.yaml');
  expect(d).toHaveLength(1);
  expect(d[0]).toMatch(/^invalid\/syntax\.yaml:\d+:\d+ yaml-syntax: /);
});

test('file references: escaping the workspace and missing files', () => {
  expect(messages('files.yaml')).toEqual([
    "invalid/files.yaml:7:20 case 'escapes': escapes-workspace: '../../../../etc/passwd' resolves outside the workspace (" +
      FIXTURES +
      ')',
    "invalid/files.yaml:13:20 case 'missing': missing-file: file 'nowhere.md' not found (looked for invalid/nowhere.md, nowhere.md)",
  ]);
});

test('a symlink leaving the workspace is refused', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 're-ws-'));
  const outside = mkdtempSync(path.join(os.tmpdir(), 're-out-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  mkdirSync(path.join(root, 'evals'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'evals', 'link.txt'));
  writeFileSync(
    path.join(root, 'evals', 's.yaml'),
    'evalcases:\n  - id: x\n    input:\n      - role: user\n        content:\n          - type: file\n            value: link.txt\n',
  );
  const d = loadSuiteFile(path.join(root, 'evals', 's.yaml'), new Workspace(root)).diagnostics.map(
    formatDiagnostic,
  );
  expect(d).toEqual([
    "evals/s.yaml:7:20 case 'x': escapes-workspace: 'link.txt' is a symlink to a place outside the workspace",
  ]);
});

test('a leading / is trimmed and searched from the suite folder up to the workspace root (AgentV)', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 're-ws-'));
  mkdirSync(path.join(root, 'a/b'), { recursive: true });
  writeFileSync(path.join(root, 'shared.md'), 'shared\r\ntext\r\n');
  writeFileSync(
    path.join(root, 'a/b/s.yaml'),
    'evalcases:\n  - id: x\n    input:\n      - role: user\n        content:\n          - type: file\n            value: /shared.md\n',
  );
  const r = loadSuiteFile(path.join(root, 'a/b/s.yaml'), new Workspace(root));
  expect(r.diagnostics).toEqual([]);
  const part = r.suite!.cases[0]!.inputMessages[0]!.parts[0]!;
  expect(part.type === 'file' && part.file).toMatchObject({ path: 'shared.md', text: 'shared\ntext\n' });
});

test('JSONL suites: each line is a case, positions are per line', () => {
  expect(messages('cases.jsonl')).toEqual([
    expect.stringMatching(/^invalid\/cases\.jsonl:3:\d+ yaml-syntax: /),
  ]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  writeFileSync(
    path.join(dir, 'c.jsonl'),
    '{"id": "ok", "input": "hello", "rubrics": ["Greets back"]}\n\n{"id": "bad", "input": "hello", "rubrics": [{"id": "r", "required_min_score": 11, "score_ranges": {"0": "bad", "5": "good"}}]}\n',
  );
  const r = loadSuiteFile(path.join(dir, 'c.jsonl'), new Workspace(dir));
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    "c.jsonl:3:79 rubric 'r': bounds: required_min_score 11 is outside 0..10",
  ]);
});

test('several bad files: every problem of every file is reported together', async () => {
  const { files, diagnostics: globProblems } = await findSuiteFiles(
    ['invalid/*.yaml', 'invalid/*.jsonl', 'nothing/*.yaml'],
    FIXTURES,
  );
  expect(globProblems.map(formatDiagnostic)).toEqual([
    `nothing/*.yaml no-match: no suite files (.yaml, .yml, .jsonl) match 'nothing/*.yaml' in ${FIXTURES}`,
  ]);
  const { suites, diagnostics } = await loadSuites(files, ws);
  expect(suites).toEqual([]);
  const filesWithErrors = new Set(diagnostics.filter((d) => d.severity === 'error').map((d) => d.file));
  expect([...filesWithErrors].sort()).toEqual([
    'invalid/cases.jsonl',
    'invalid/files.yaml',
    'invalid/mixed.yaml',
    'invalid/ranges.yaml',
    'invalid/syntax.yaml',
    'invalid/types.yaml',
  ]);
});

test('a key near a known one is an error with did-you-mean; a far one a warning; both name file:line:col', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  writeFileSync(
    path.join(dir, 's.yaml'),
    'evalcases:\n  - id: x\n    input: hi\n    rubric:\n      - typo\n    flavour: extra\n',
  );
  const r = loadSuiteFile(path.join(dir, 's.yaml'), new Workspace(dir));
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    "s.yaml:4:5 case 'x': unknown-key: unknown field 'rubric': did you mean 'rubrics'?",
    "s.yaml:6:5 warning: case 'x': unknown-key: unknown field 'flavour' is ignored",
  ]);
  expect(r.suite).toBeUndefined();
});

test('typos are caught at every level: rubric items, score ranges, evaluators, aggregators, messages', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  writeFileSync(
    path.join(dir, 's.yaml'),
    [
      'descripton: typo at the top',
      'execution:',
      '  targte: default',
      'evalcases:',
      '  - id: x',
      '    input:',
      '      - role: user',
      '        contnet: hi',
      '    rubrics:',
      '      - id: acc',
      '        required_min_scroe: 7',
      '        score_ranges:',
      '          - score_range: [0, 10]',
      '            expected_outcom: all',
      '  - id: y',
      '    input: hi',
      '    execution:',
      '      evaluators:',
      '        - name: j',
      '          type: llm_judge',
      '          promt: p.md',
      '          wieght: 2',
      '        - name: c',
      '          type: code_judge',
      '          script: [node, -e, "1"]',
      '          scirpt: x',
      '          max_words: 40',
      '          paths: [a]',
      '        - name: k',
      '          type: composite',
      '          evaluators: [{ name: a, type: code_judge, script: "true" }]',
      '          aggregator: { type: weighted_average, wieghts: { a: 1 } }',
      '  - id: z',
      '    input: hi',
      '    rubrics:',
      '      - id: r',
      '        expected_outcome: ok',
      '        requried: true',
      '',
    ].join('\n'),
  );
  const r = loadSuiteFile(path.join(dir, 's.yaml'), new Workspace(dir));
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    "s.yaml:1:1 suite: unknown-key: unknown field 'descripton': did you mean 'description'?",
    "s.yaml:3:3 suite: unknown-key: unknown field 'targte': did you mean 'target'?",
    "s.yaml:8:9 case 'x': unknown-key: unknown field 'contnet': did you mean 'content'?",
    "s.yaml:11:9 rubric 'acc': unknown-key: unknown field 'required_min_scroe': did you mean 'required_min_score'?",
    "s.yaml:14:13 rubric 'acc': unknown-key: unknown field 'expected_outcom': did you mean 'expected_outcome'?",
    "s.yaml:13:26 rubric 'acc': empty-outcome: [0, 10] has no expected_outcome",
    "s.yaml:21:11 case 'y' evaluator 'j': unknown-key: unknown field 'promt': did you mean 'prompt'?",
    "s.yaml:22:11 case 'y' evaluator 'j': unknown-key: unknown field 'wieght': did you mean 'weight'?",
    "s.yaml:26:11 case 'y' evaluator 'c': unknown-key: 'scirpt' is passed to the script as config; did you mean 'script'?",
    "s.yaml:28:11 warning: case 'y' evaluator 'c': unknown-key: 'paths' is passed to the script as config; did you mean 'path'?",
    "s.yaml:32:49 case 'y' evaluator 'k': unknown-key: unknown field 'wieghts': did you mean 'weights'?",
    "s.yaml:38:9 rubric 'r': unknown-key: unknown field 'requried': did you mean 'required'?",
  ]);
  // A code judge's other keys are its config, as in AgentV: `max_words` is not reported.
  expect(r.suite).toBeUndefined();
});

test('a duplicate case id is reported even when that case has other errors', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  writeFileSync(
    path.join(dir, 's.yaml'),
    'evalcases:\n  - id: x\n    input: hi\n  - id: x\n    input: 42\n  - id: y\n    input: hi\n  - id: y\n',
  );
  const r = loadSuiteFile(path.join(dir, 's.yaml'), new Workspace(dir));
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    "s.yaml:4:9 case 'x': duplicate-id: case id 'x' is already used by case 1",
    "s.yaml:5:12 case 'x': type: input must be a string (one user message) or a list of {role, content} messages",
    "s.yaml:8:9 case 'y': duplicate-id: case id 'y' is already used by case 3",
    "s.yaml:8:5 case 'y': required: missing `input_messages` (or `input`): what is the question?",
  ]);
});

test('a YAML alias bomb is refused', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 0; i < 9; i++) {
    const prev = String.fromCharCode(97 + i);
    const next = String.fromCharCode(98 + i);
    lines.push(
      `${next}: &${next} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
    );
  }
  lines.push('evalcases: []');
  writeFileSync(path.join(dir, 'bomb.yaml'), lines.join('\n'));
  const r = loadSuiteFile(path.join(dir, 'bomb.yaml'), new Workspace(dir));
  expect(r.diagnostics.map((d) => d.rule)).toEqual(['yaml-aliases']);
});

test('a suite over the size limit is refused before parsing', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  writeFileSync(path.join(dir, 'big.yaml'), `# ${'x'.repeat(11 * 1024 * 1024)}\nevalcases: []\n`);
  const r = loadSuiteFile(path.join(dir, 'big.yaml'), new Workspace(dir));
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    'big.yaml too-large: suite file: file is 11.0 MB; the limit is 10 MB',
  ]);
});

test('an llm_judge evaluator’s `model` is ignored with a warning at its key: the judge is the workflow’s', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  const file = path.join(dir, 's.yaml');
  writeFileSync(
    file,
    'evalcases:\n  - id: a\n    input: q\n    execution:\n      evaluators:\n        - name: j\n          type: llm_judge\n          model: my-lenient-model\n',
  );
  const { diagnostics } = loadSuiteFile(file, new Workspace(dir));
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    "s.yaml:8:11 warning: case 'a' evaluator 'j': judge-model-ignored: `model` is ignored: every case is judged by the workflow's judge (the judge inputs), never by a model the checkout names",
  ]);
});
