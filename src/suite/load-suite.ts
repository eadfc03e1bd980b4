import path from 'node:path';
import { type Diagnostic, DiagnosticSink, type Position } from '../core/diagnostics.js';
import { type EvalSuite, type SuiteLoadOptions } from './types.js';
import { readUserFile } from '../core/user-file.js';
import { type Workspace } from '../core/workspace.js';
import { tooDeepOffset } from '../core/nesting.js';
import {
  type PathSegment,
  parseYamlSource,
  type SourceDocument,
  tooDeepMessage,
} from '../core/yaml-source.js';
import { SuiteLoader } from './v2/load-v2.js';
import { isRecord } from '../core/is-record.js';
export interface SuiteLoadResult {
  suite: EvalSuite | undefined;
  diagnostics: Diagnostic[];
}

/**
 * Loads one suite file (YAML or JSONL) into typed cases, collecting every problem with its
 * file:line:column. Returns no suite when any error was found: nothing is judged on a guess.
 */
export function loadSuiteFile(absPath: string, ws: Workspace, o: SuiteLoadOptions = {}): SuiteLoadResult {
  const display = ws.display(absPath);
  const sink = new DiagnosticSink(display);
  const fail = (rule: string, message: string): SuiteLoadResult => {
    sink.error({ line: 0, column: 0 }, rule, message);
    return { suite: undefined, diagnostics: sink.items };
  };
  const text = readUserFile(absPath, ws, 'suite file', sink, false);
  if (text === undefined) return { suite: undefined, diagnostics: sink.items };

  const ext = path.extname(absPath).toLowerCase();
  let doc: SourceDocument | undefined;
  if (ext === '.jsonl') doc = parseJsonl(text, sink);
  else if (ext === '.yaml' || ext === '.yml' || ext === '.json') doc = parseYamlSource(text, sink);
  else return fail('file-type', `unsupported suite file type '${ext}' (use .yaml, .yml or .jsonl)`);
  if (!doc) return { suite: undefined, diagnostics: sink.items };

  const loader = new SuiteLoader(absPath, display, doc, sink, ws, o);
  const suite = loader.load();
  return { suite: sink.hasErrors ? undefined : suite, diagnostics: sink.items };
}

/** Each JSONL line is one case; positions are kept per line. */
function parseJsonl(text: string, sink: DiagnosticSink): SourceDocument | undefined {
  const docs: { line: number; doc: SourceDocument }[] = [];
  const lines = text.split('\n');
  let ok = true;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    // Depth is checked on the text, before any parser or walker can overflow on it.
    const deep = tooDeepOffset(line);
    if (deep >= 0) {
      sink.error({ line: i + 1, column: deep + 1 }, 'too-deep', tooDeepMessage);
      ok = false;
      return;
    }
    // Lines are JSON: parsed as such, with the YAML parser (a superset) only for the error position.
    let doc: SourceDocument | undefined;
    try {
      doc = jsonLineDocument(JSON.parse(line), line, i, sink);
    } catch {
      doc = parseYamlSource(line, sink, i);
    }
    if (!doc) ok = false;
    else if (!isRecord(doc.value)) {
      sink.error({ line: i + 1, column: 1 }, 'type', 'each JSONL line must be a JSON object (one eval case)');
      ok = false;
    } else docs.push({ line: i + 1, doc });
  });
  if (!ok) return undefined;
  const route = (p: readonly PathSegment[], key: boolean): Position => {
    if (p[0] === 'evalcases' && typeof p[1] === 'number' && docs[p[1]]) {
      const d = docs[p[1]]!.doc;
      return key ? d.locateKey(p.slice(2)) : d.locate(p.slice(2));
    }
    return { line: 1, column: 1 };
  };
  return {
    value: { evalcases: docs.map((d) => d.doc.value) },
    locate: (p) => route(p, false),
    locateKey: (p) => route(p, true),
    position: (p) => {
      if (p[0] === 'evalcases' && typeof p[1] === 'number' && docs[p[1]])
        return docs[p[1]]!.doc.position(p.slice(2));
      return { line: 1, column: 1 };
    },
  };
}

/** A JSONL line already parsed as JSON; exact positions are computed only if a problem needs one. */
function jsonLineDocument(value: unknown, line: string, index: number, sink: DiagnosticSink): SourceDocument {
  let exact: SourceDocument | undefined | null = null;
  const exactDoc = () =>
    exact === null ? (exact = parseYamlSource(line, new DiagnosticSink(sink.file), index)) : exact;
  const start = { line: index + 1, column: 1 };
  return {
    value,
    locate: (p) => exactDoc()?.locate(p) ?? start,
    locateKey: (p) => exactDoc()?.locateKey(p) ?? start,
    position: () => start,
  };
}
