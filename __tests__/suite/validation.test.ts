import { mkdtempSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../../src/diagnostics.js';
import { findSuiteFiles, loadSuites } from '../../src/suite/discover.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { Workspace } from '../../src/suite/workspace.js';
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
    "invalid/types.yaml:4:12 case 'one': type: must be a string (one user message) or a list of {role, content} messages",
    "invalid/types.yaml:11:5 case 2: required: missing required field 'id'",
    "invalid/types.yaml:17:17 case 'three': enum: evaluator type must be one of llm_judge, llm-judge, code_judge, code-judge, composite, field_accuracy, latency, cost, token_usage, tool_trajectory, execution_metrics",
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

test('a leading / means the workspace root', () => {
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
  const { suites, diagnostics } = loadSuites(files, ws);
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

test('an unknown field is a warning naming the key (a typo must not be silently ignored)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-'));
  writeFileSync(
    path.join(dir, 's.yaml'),
    'evalcases:\n  - id: x\n    input: hi\n    rubric:\n      - typo\n',
  );
  const r = loadSuiteFile(path.join(dir, 's.yaml'), new Workspace(dir));
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    "s.yaml:4:5 warning: case 'x': unknown-key: unknown field 'rubric' is ignored",
  ]);
  expect(r.suite).toBeDefined();
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
    'big.yaml too-large: file is 11.0 MB; the limit is 10 MB',
  ]);
});
