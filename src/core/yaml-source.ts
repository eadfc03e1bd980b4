import jsYaml from 'js-yaml';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { type DiagnosticSink, type Position } from './diagnostics.js';
import { MAX_NESTING_DEPTH, tooDeepPath } from './nesting.js';

/** Aliases beyond this count are refused: a "billion laughs" document expands to gigabytes. */
const MAX_ALIAS_COUNT = 100;

export type PathSegment = string | number;

/**
 * A parsed YAML (or JSON) document that can still say where each value came from, so that
 * validation messages point at file:line:column even after the value has been turned into JS.
 */
export interface SourceDocument {
  value: unknown;
  /** Exact position of the value at `path` (or of the deepest ancestor that exists). */
  locate(path: readonly PathSegment[]): Position;
  /** Exact position of the key of the last segment (for problems with a key itself). */
  locateKey(path: readonly PathSegment[]): Position;
  /**
   * Cheap position for values every run records (cases, evaluators): where the nearest mapping
   * or sequence on `path` starts. Never forces the exact (expensive) position index.
   */
  position(path: readonly PathSegment[]): Position;
}

interface Ranged {
  range?: [number, number, number] | null;
}

function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

/** Offsets → 1-based line and column, by binary search over line starts. */
function lineIndex(text: string, lineOffset: number): (offset: number) => Position {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1 + lineOffset, column: offset - starts[lo]! + 1 };
  };
}

/** Anchors or aliases anywhere: such documents take the guarded path (alias expansion is bounded there). */
const ANCHOR_OR_ALIAS = /(?:^|[\s,[{:-])[&*][^\s,[\]{}]+/m;

/**
 * Parses YAML text. Syntax errors are reported into `sink` with their position; returns
 * undefined when the document cannot be used. `lineOffset` shifts positions (JSONL lines).
 *
 * Two parsers, one meaning: js-yaml (core schema, as YAML 1.2 like `yaml`'s default) builds the
 * value fast and lean — a 5 MB suite in ~150 ms and tens of MB — and records where each mapping
 * and sequence starts; `yaml`'s document API, ~10x heavier, is used only to report exact
 * positions when there is a problem, and for documents with anchors or aliases, whose expansion
 * it bounds.
 */
export function parseYamlSource(
  text: string,
  sink: DiagnosticSink,
  lineOffset = 0,
): SourceDocument | undefined {
  let doc: SourceDocument | undefined;
  let fast: FastDocument | undefined;
  try {
    fast = ANCHOR_OR_ALIAS.test(text) ? undefined : parseFast(text, lineOffset);
    doc = fast ?? parseExact(text, sink, lineOffset);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    sink.error({ line: 1 + lineOffset, column: 1 }, 'too-deep', tooDeepMessage);
    return undefined;
  }
  const deep = doc && !fast?.shallow ? tooDeepPath(doc.value) : null;
  if (doc && deep) {
    sink.error(doc.locate(deep), 'too-deep', tooDeepMessage);
    return undefined;
  }
  return doc;
}

export const tooDeepMessage = `nested more than ${MAX_NESTING_DEPTH} levels deep: refused (no suite needs it, and it would overflow the parser)`;

/** `shallow`: no value can nest past the limit (the walk that would find one is not needed). */
type FastDocument = SourceDocument & { shallow: boolean };

function parseFast(text: string, lineOffset: number): FastDocument | undefined {
  // A Map, not a WeakMap: it lives exactly as long as the document it indexes (the closures below
  // hold both), and a WeakMap of every mapping and sequence of a 10,000-case suite costs the
  // garbage collector more than the parse.
  const starts = new Map<object, number>();
  const open: number[] = [];
  // The most nodes ever open at once: a bound on how deep the value nests (every ancestor of a
  // node is open while it is read; there are no aliases here), so the walk that finds the path
  // to a too-deep value runs only when one may exist.
  let deepest = 0;
  let value: unknown;
  try {
    value = jsYaml.load(text, {
      schema: jsYaml.CORE_SCHEMA,
      listener(event, state) {
        if (event === 'open') {
          if (open.length > deepest) deepest = open.length;
          open.push(state.position);
        } else {
          const at = open.pop();
          const result: unknown = state.result;
          if (at !== undefined && result !== null && typeof result === 'object' && !starts.has(result))
            starts.set(result, at);
        }
      },
    });
  } catch {
    return undefined; // the exact parser reports the problem with its position
  }
  if (text.length >= DETACH_FROM_CHARS && deepest < MAX_NESTING_DEPTH) detachStrings(value);
  const at = lineIndex(text, lineOffset);
  let exact: SourceDocument | undefined | null = null;
  const exactDoc = (): SourceDocument | undefined => {
    if (exact === null)
      exact = parseExact(text, { error() {}, warn() {} } as unknown as DiagnosticSink, lineOffset);
    return exact;
  };
  return {
    value,
    shallow: deepest < MAX_NESTING_DEPTH,
    locate: (p) => exactDoc()?.locate(p) ?? { line: 1 + lineOffset, column: 1 },
    locateKey: (p) => exactDoc()?.locateKey(p) ?? { line: 1 + lineOffset, column: 1 },
    position: (p) => {
      let node: unknown = value;
      let best = starts.get(value as object) ?? 0;
      for (const seg of p) {
        if (node === null || typeof node !== 'object') break;
        node = (node as Record<PathSegment, unknown>)[seg];
        if (node !== null && typeof node === 'object' && starts.has(node)) best = starts.get(node)!;
      }
      return at(skipIndicator(text, best));
    },
  };
}

/**
 * From this size a document's strings are copied out of its text. js-yaml cuts each value out of
 * the text, and V8 keeps such a cut as a view of the whole text: the 70,000 values of a
 * 10,000-case suite held its 5 MB text for the whole run (a heap snapshot's retainers).
 */
const DETACH_FROM_CHARS = 64 * 1024;

/**
 * Replaces every string in `value` (in place: the position index keys its objects) by a copy,
 * one copy per distinct text: a rubric shared by many cases is held once.
 */
function detachStrings(value: unknown, copies = new Map<string, string>()): void {
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string | number, unknown>;
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(record);
  for (const key of keys) {
    const v = record[key];
    if (typeof v !== 'string') detachStrings(v, copies);
    else {
      let copy = copies.get(v);
      // Joining flattens into a new string; the slice is then a view of that, not of the text.
      if (copy === undefined) copies.set(v, (copy = ` ${v}`.slice(1)));
      record[key] = copy;
    }
  }
}

/** js-yaml reports a block sequence item's mapping at its `- `; point at the first key instead. */
function skipIndicator(text: string, offset: number): number {
  let i = offset;
  while (text[i] === '-' && (text[i + 1] === ' ' || text[i + 1] === '\n')) {
    i++;
    while (text[i] === ' ') i++;
  }
  return i;
}

function parseExact(text: string, sink: DiagnosticSink, lineOffset: number): SourceDocument | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const at = (offset: number): Position => {
    const p = lineCounter.linePos(offset);
    return { line: p.line + lineOffset, column: p.col };
  };
  let failed = false;
  for (const e of doc.errors) {
    const overflow = /call stack/i.test(e.message);
    const rule = e.code === 'DUPLICATE_KEY' ? 'duplicate-key' : overflow ? 'too-deep' : 'yaml-syntax';
    sink.error(at(e.pos[0]), rule, overflow ? tooDeepMessage : firstLine(e.message));
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
  return {
    value,
    locate: (p) => walk(p, false),
    locateKey: (p) => walk(p, true),
    position: (p) => walk(p, false),
  };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
