import path from 'node:path';
import { DiagnosticSink, type Position } from '../../core/diagnostics.js';
import { type Workspace } from '../../core/workspace.js';
import { readReferencedFile } from '../../core/user-file.js';
import { csvDocument } from './tests-csv.js';
import { type PathSegment, parseYamlSource, type SourceDocument } from '../../core/yaml-source.js';
import { isRecord } from '../../core/is-record.js';

/** A file tests are read from, with its own positions and problems. */
export interface TestsFile {
  absPath: string;
  display: string;
  doc: SourceDocument;
  sink: DiagnosticSink;
  ws: Workspace;
  /** Cases' inputs only: assertions unread (suite/types.ts `SuiteLoadOptions`). */
  inputsOnly?: boolean;
}

/** One test as written, and where: inline in the suite or in a referenced file. */
export interface TestRef {
  value: unknown;
  at: PathSegment[];
  file: TestsFile;
}

/**
 * `tests` as AgentV 5 takes it: a list whose items are tests or `file://` references, or one
 * reference. Referenced YAML (a list, or `{tests: [...]}`) and JSONL (a test per line) are read
 * with their positions, and CSV datasets (promptfoo's, see tests-csv.ts) row by row; problems in
 * them are reported against their own file (`extra`).
 */
export function readTests(f: TestsFile, extra: DiagnosticSink[]): TestRef[] | undefined {
  const t = (f.doc.value as Record<string, unknown>).tests;
  const dir = path.dirname(f.absPath);
  if (typeof t === 'string') return readTestsFile(t, ['tests'], f, dir, extra);
  if (!Array.isArray(t)) {
    f.sink.error(
      f.doc.locate(['tests']),
      'type',
      '`tests` must be a list of tests or a file reference',
      'suite',
    );
    return undefined;
  }
  const out: TestRef[] = [];
  t.forEach((item, i) => {
    if (typeof item !== 'string') out.push({ value: item, at: ['tests', i], file: f });
    else out.push(...(readTestsFile(item, ['tests', i], f, dir, extra) ?? []));
  });
  return out;
}

function readTestsFile(
  ref: string,
  at: PathSegment[],
  f: TestsFile,
  dir: string,
  extra: DiagnosticSink[],
): TestRef[] | undefined {
  const fail = (rule: string, message: string) => {
    f.sink.error(f.doc.locate(at), rule, message, 'suite');
    return undefined;
  };
  const rel = ref.replace(/^file:\/\//, '');
  const abs = path.resolve(dir, rel);
  if (!f.ws.contains(abs)) return fail('escapes-workspace', `'${ref}' is outside the workspace`);
  if (!f.ws.has(abs)) return fail('missing-file', `tests file '${ref}' not found`);
  if (f.ws.isDirectory(abs))
    return fail(
      'tests-directory',
      `'${ref}' is a folder of test directories (AgentV directory discovery), not read here; list the tests or reference a YAML or JSONL file`,
    );
  const ext = path.extname(abs).toLowerCase();
  const display = f.ws.display(abs);
  const sink = new DiagnosticSink(display);
  extra.push(sink);
  const read = readReferencedFile(f.ws, abs, dir, fail, ref);
  if (!read) return undefined;
  const text = read.text;
  const file = (doc: SourceDocument): TestsFile => ({ ...f, absPath: abs, display, doc, sink });
  if (ext === '.jsonl' || ext === '.csv') {
    const doc = ext === '.csv' ? csvDocument(text, sink) : jsonlDocument(text, sink);
    return (doc.value as unknown[]).map((value, i) => ({ value, at: [i], file: file(doc) }));
  }
  const doc = parseYamlSource(text, sink);
  if (!doc) return undefined;
  const v = doc.value;
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.tests) ? v.tests : null;
  if (!list) {
    sink.error({ line: 1, column: 1 }, 'type', 'a tests file holds a list of tests (or `tests:` with one)');
    return undefined;
  }
  const base: PathSegment[] = Array.isArray(v) ? [] : ['tests'];
  return list.map((value, i) => ({ value, at: [...base, i], file: file(doc) }));
}

/** A JSONL tests file: one test per line, each located at its line. */
function jsonlDocument(text: string, sink: DiagnosticSink): SourceDocument {
  const list: unknown[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      list.push(JSON.parse(line));
      lines.push(i + 1);
    } catch (err) {
      sink.error({ line: i + 1, column: 1 }, 'json', (err as Error).message);
    }
  });
  const at = (p: readonly PathSegment[]): Position => ({
    line: typeof p[0] === 'number' ? (lines[p[0]] ?? 1) : 1,
    column: 1,
  });
  return { value: list, locate: at, locateKey: at, position: at };
}
