import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { type DiagnosticSink, type Position } from '../diagnostics.js';

/** Aliases beyond this count are refused: a "billion laughs" document expands to gigabytes. */
export const MAX_ALIAS_COUNT = 100;

export type PathSegment = string | number;

/**
 * A parsed YAML (or JSON) document that can still say where each value came from, so that
 * validation messages point at file:line:column even after the value has been turned into JS.
 */
export interface SourceDocument {
  value: unknown;
  /** Position of the value at `path` (or of the deepest ancestor that exists). */
  locate(path: readonly PathSegment[]): Position;
  /** Position of the key of the last segment (for problems with a key itself). */
  locateKey(path: readonly PathSegment[]): Position;
}

interface Ranged {
  range?: [number, number, number] | null;
}

function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

/**
 * Parses YAML text. Syntax errors are reported into `sink` with their position; returns
 * undefined when the document cannot be used. `lineOffset` shifts positions (JSONL lines).
 */
export function parseYamlSource(
  text: string,
  sink: DiagnosticSink,
  lineOffset = 0,
): SourceDocument | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const at = (offset: number): Position => {
    const p = lineCounter.linePos(offset);
    return { line: p.line + lineOffset, column: p.col };
  };
  let failed = false;
  for (const e of doc.errors) {
    const rule = e.code === 'DUPLICATE_KEY' ? 'duplicate-key' : 'yaml-syntax';
    sink.error(at(e.pos[0]), rule, firstLine(e.message));
    failed = true;
  }
  for (const w of doc.warnings) sink.warn(at(w.pos[0]), 'yaml', firstLine(w.message));
  if (failed) return undefined;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    sink.error(
      at(0),
      'yaml-aliases',
      `${firstLine(String((err as Error).message ?? err))} (at most ${MAX_ALIAS_COUNT} alias expansions)`,
    );
    return undefined;
  }

  const walk = (path: readonly PathSegment[], wantKey: boolean): Position => {
    let node: unknown = doc.contents;
    let pos = (node as Ranged | null)?.range?.[0] ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      if (isMap(node)) {
        const pair = node.items.find((p) => keyText(p.key) === String(seg));
        if (!pair) break;
        const keyPos = (pair.key as Ranged | null)?.range?.[0];
        const valuePos = (pair.value as Ranged | null)?.range?.[0];
        const last = i === path.length - 1;
        pos = (last && wantKey ? keyPos : (valuePos ?? keyPos)) ?? pos;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg] as Node | undefined;
        if (!item) break;
        pos = (item as Ranged).range?.[0] ?? pos;
        node = item;
      } else break;
    }
    return at(pos);
  };
  return { value, locate: (p) => walk(p, false), locateKey: (p) => walk(p, true) };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
