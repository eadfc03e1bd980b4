import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { rubricFromInput } from '../../src/checker/markdown-rubric.js';
import { DiagnosticSink, type Diagnostic } from '../../src/core/diagnostics.js';
import { readUserFile } from '../../src/core/user-file.js';
import { MAX_FILE_BYTES, Workspace } from '../../src/core/workspace.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { loadAnswersFile } from '../../src/targets/answers-file.js';
import { loadTargetsFile } from '../../src/targets/targets-file.js';
import { tmpDir } from '../helpers/judge.js';

/** Each input a user names by path, read through its own loader: the file name it needs, and how. */
const READERS: [string, string, (abs: string, ws: Workspace) => Diagnostic[]][] = [
  ['suite', 'suite.yaml', (abs, ws) => loadSuiteFile(abs, ws).diagnostics],
  ['rubric', 'RUBRIC.md', (abs, ws) => rubricFromInput(path.relative(ws.root, abs), ws).diagnostics],
  ['answers-file', 'answers.jsonl', (abs, ws) => loadAnswersFile(abs, ws).diagnostics],
  ['targets', 'targets.yaml', (abs, ws) => loadTargetsFile(abs, ws).diagnostics],
];

function setUp(): { ws: Workspace; root: string; outside: string } {
  const base = tmpDir('re-user-file-');
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  return { ws: new Workspace(root), root, outside };
}

const rules = (d: Diagnostic[]) => d.filter((x) => x.severity === 'error').map((x) => x.rule);

describe.each(READERS)('the %s input, read as every user file is', (_name, file, read) => {
  test('outside the workspace through ..: escapes-workspace, never opened', () => {
    const { ws, root, outside } = setUp();
    writeFileSync(path.join(outside, file), 'x');
    expect(rules(read(path.join(root, '..', 'outside', file), ws))).toEqual(['escapes-workspace']);
  });

  test('a symlink in the workspace to a file outside it: escapes-workspace', () => {
    const { ws, root, outside } = setUp();
    writeFileSync(path.join(outside, file), 'x');
    symlinkSync(path.join(outside, file), path.join(root, file));
    expect(rules(read(path.join(root, file), ws))).toEqual(['escapes-workspace']);
  });

  test('missing, or a folder: missing-file naming the path', () => {
    const { ws, root } = setUp();
    const missing = read(path.join(root, 'sub', file), ws);
    expect(missing.map((d) => `${d.rule}: ${d.message}`)).toEqual([
      expect.stringMatching(new RegExp(`^missing-file: .* not found: sub/${file.replace('.', '\\.')}$`)),
    ]);
    mkdirSync(path.join(root, file));
    expect(rules(read(path.join(root, file), ws))).toEqual(['missing-file']);
  });

  test('over the size limit: too-large, before it is read', () => {
    const { ws, root } = setUp();
    writeFileSync(path.join(root, file), '');
    truncateSync(path.join(root, file), MAX_FILE_BYTES + 1);
    expect(rules(read(path.join(root, file), ws))).toEqual(['too-large']);
  });
});

test('a readable file: its text with CRLF folded, and nothing reported', () => {
  const { ws, root } = setUp();
  writeFileSync(path.join(root, 'a.txt'), 'one\r\ntwo\n');
  const sink = new DiagnosticSink('a.txt');
  expect(readUserFile(path.join(root, 'a.txt'), ws, 'some file', sink)).toBe('one\ntwo\n');
  expect(sink.items).toEqual([]);
});

test('the problem names the input and sits at line 0 of the file as the user named it', () => {
  const { ws, root } = setUp();
  const sink = new DiagnosticSink('config/targets.yaml');
  expect(readUserFile(path.join(root, '../elsewhere.yaml'), ws, 'targets file', sink)).toBeUndefined();
  expect(sink.items).toEqual([
    {
      severity: 'error',
      file: 'config/targets.yaml',
      line: 0,
      column: 0,
      rule: 'escapes-workspace',
      message: `targets file resolves outside the workspace (${root}), through '..' or a symlink: refused`,
      subject: undefined,
    },
  ]);
});
