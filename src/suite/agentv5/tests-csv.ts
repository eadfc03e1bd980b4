import { type DiagnosticSink, type Position } from '../../core/diagnostics.js';
import { type PathSegment, type SourceDocument } from '../../core/yaml-source.js';
import { readCsv } from './csv-rows.js';
import { TEXT_CHECKS } from '../types.js';

/**
 * promptfoo's CSV datasets (`tests: file://cases.csv`), as promptfoo and AgentV 5 read them: the
 * header names the columns; each row is a test. Columns are vars (`vars.a.b` nests, as AgentV);
 * `__expected`, `__expected2`, ... hold one assertion each in promptfoo's short syntax;
 * `__description`, `__metric` (the assertions' name), `__threshold` (the test's), and
 * `__config:__expectedN:threshold` set the rest. An `id` column is the test id (AgentV).
 */

/** Columns promptfoo gives a meaning this loader does not run: refused by name. */
const UNREAD_COLUMNS: Record<string, string> = {
  __prefix: 'a prefix added to the prompt',
  __suffix: 'a suffix added to the prompt',
  __provider_output: 'a recorded answer (use answers-file)',
  __providerOutput: 'a recorded answer (use answers-file)',
};

/** Types whose value is a comma-separated list in the short syntax. */
const LIST_TYPES = new Set(['contains-any', 'contains-all', 'icontains-any', 'icontains-all']);

/** Types read from the short syntax; any other `type:` prefix is kept so the loader names it. */
const SHORT_FORM = /^((?:not-)?[a-z][a-z0-9-]*)(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?$/;
const KNOWN = new Set<string>([
  ...TEXT_CHECKS,
  'llm-rubric',
  'latency',
  'cost',
  'similar',
  'levenshtein',
  'contains-json',
  'is-xml',
  'is-sql',
  'answer-relevance',
  'factuality',
  'model-graded-closedqa',
  'rouge-n',
  'bleu',
  'perplexity',
  'webhook',
]);

/** One `__expected` cell as an assertion, as promptfoo's `assertionFromString` reads it. */
export function assertionFromCell(cell: string): Record<string, unknown> {
  const s = cell.trim();
  for (const [prefix, type] of [
    ['grade:', 'llm-rubric'],
    ['llm-rubric:', 'llm-rubric'],
    ['javascript:', 'javascript'],
    ['fn:', 'javascript'],
    ['eval:', 'javascript'],
    ['python:', 'python'],
  ] as const)
    if (s.startsWith(prefix)) return { type, value: s.slice(prefix.length).trim() };
  if (s.startsWith('file://')) return { type: /\.py(:|$)/.test(s) ? 'python' : 'javascript', value: s };
  const m = SHORT_FORM.exec(s);
  const type = m?.[1];
  if (!m || !type || !KNOWN.has(type.replace(/^not-/, ''))) return { type: 'equals', value: s };
  const value = m[3]?.trim();
  const limit = m[2] === undefined ? undefined : Number(m[2]);
  const out: Record<string, unknown> = { type };
  if (value !== undefined)
    out.value = LIST_TYPES.has(type.replace(/^not-/, '')) ? value.split(',').map((v) => v.trim()) : value;
  if (limit !== undefined) out.threshold = limit;
  return out;
}

function setVar(vars: Record<string, unknown>, key: string, value: string): void {
  const parts = key.startsWith('vars.') ? key.slice(5).split('.').filter(Boolean) : [key];
  let at = vars;
  for (const p of parts.slice(0, -1)) {
    const next = at[p];
    at = (at[p] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
  }
  at[parts.at(-1) ?? key] = value;
}

/** A CSV tests file as a document of tests, each located at its row's line. */
export function csvDocument(text: string, sink: DiagnosticSink): SourceDocument {
  const list: unknown[] = [];
  const lines: number[] = [];
  const at = (p: readonly PathSegment[]): Position => ({
    line: typeof p[0] === 'number' ? (lines[p[0]] ?? 1) : 1,
    column: 1,
  });
  const doc = { value: list, locate: at, locateKey: at, position: at };
  const read = readCsv(text);
  if (!read.ok) {
    sink.error({ line: read.line, column: 1 }, 'csv', read.message);
    return doc;
  }
  const [head, ...rows] = read.records;
  if (!head) return doc;
  const names = head.fields.map((h) => h.trim());
  for (const name of names) {
    if (UNREAD_COLUMNS[name])
      sink.error(
        { line: head.line, column: 1 },
        'unsupported-column',
        `column '${name}' (${UNREAD_COLUMNS[name]}) is not read by rubric-eval`,
      );
    else if (name.startsWith('__') && !isKnownColumn(name))
      sink.error({ line: head.line, column: 1 }, 'unknown-column', `unknown column '${name}'`);
  }
  if (sink.hasErrors) return doc;
  for (const row of rows) {
    if (row.fields.length > names.length)
      sink.error(
        { line: row.line, column: 1 },
        'csv',
        `this row has ${row.fields.length} fields, the header ${names.length}`,
      );
    list.push(testFromRow(names, row.fields));
    lines.push(row.line);
  }
  return doc;
}

function isKnownColumn(name: string): boolean {
  return (
    /^__expected\d*$/.test(name) ||
    ['__description', '__metric', '__threshold'].includes(name) ||
    name.startsWith('__metadata:') ||
    /^__config:__expected\d*:threshold$/.test(name)
  );
}

function testFromRow(names: string[], fields: string[]): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  const asserts: Record<string, unknown>[] = [];
  const limits = new Map<number, unknown>();
  const test: Record<string, unknown> = {};
  let metric: string | null = null;
  names.forEach((name, i) => {
    const cell = fields[i] ?? '';
    if (name === '') return;
    if (/^__expected\d*$/.test(name)) {
      if (cell.trim() !== '') asserts.push(assertionFromCell(cell));
    } else if (name === '__description') {
      if (cell.trim() !== '') test.description = cell;
    } else if (name === '__metric') {
      if (cell.trim() !== '') metric = cell.trim();
    } else if (name === '__threshold') {
      // Checked as the test's threshold (a number in 0..1) by the test schema.
      if (cell.trim() !== '') test.threshold = Number.isNaN(Number(cell)) ? cell : Number(cell);
    } else if (name.startsWith('__config:')) {
      const n = Number(/__expected(\d*)/.exec(name)?.[1] || '1');
      if (cell.trim() !== '') limits.set(n - 1, Number.isNaN(Number(cell)) ? cell : Number(cell));
    } else if (name === 'id') {
      if (cell.trim() !== '') test.id = cell.trim();
    } else if (!name.startsWith('__')) setVar(vars, name, cell);
  });
  asserts.forEach((a, i) => {
    if (metric) a.metric = asserts.length === 1 ? metric : `${metric}-${i + 1}`;
    if (limits.has(i)) a.threshold = limits.get(i);
  });
  return { ...test, vars, ...(asserts.length > 0 ? { assert: asserts } : {}) };
}
