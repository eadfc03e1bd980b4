import { clamp01 } from '../rubric/scoring.js';
import { type FieldAccuracyConfig, type FieldSpec } from '../suite/types.js';
import { deepEqual } from './deep-equal.js';
import { type Score, scored } from './score.js';

interface FieldResult {
  score: number;
  weight: number;
  hit: boolean;
  message: string;
}

type Json = Record<string, unknown>;

/**
 * AgentV's `field_accuracy`: each field, found by path in the candidate's JSON and in the
 * expected output, is compared by its `match`; the score is the weighted average of the fields
 * (or 1/0 for `all_or_nothing`). Pure: the caller passes the candidate text and the expected
 * object (the last expected assistant message that is JSON).
 */
export function scoreFieldAccuracy(
  config: Pick<FieldAccuracyConfig, 'fields' | 'aggregation'>,
  candidateText: string,
  expected: Json | null,
): Score {
  const candidate = parseJsonObject(candidateText);
  if (!candidate)
    return {
      ...scored(0, [], ['Failed to parse candidate answer as JSON']),
      reasoning: 'Candidate answer is not valid JSON',
    };
  if (!expected)
    return {
      ...scored(0, [], ['No expected data found in expected_messages']),
      reasoning: 'Could not extract expected data from expected_messages',
    };
  const results = config.fields.map((f) => compareField(f, candidate, expected));
  const hits = results.filter((r) => r.hit).map((r) => r.message);
  const misses = results.filter((r) => !r.hit).map((r) => r.message);
  let score: number;
  if (config.aggregation === 'all_or_nothing') score = misses.length === 0 ? 1 : 0;
  else {
    const total = results.reduce((s, r) => s + r.weight, 0);
    score =
      total === 0
        ? results.length === 0
          ? 1
          : 0
        : results.reduce((s, r) => s + r.score * r.weight, 0) / total;
  }
  // AgentV keeps at most four of each.
  return scored(
    clamp01(score),
    hits.slice(0, 4),
    misses.slice(0, 4),
    `${hits.length}/${results.length} fields matched`,
  );
}

/**
 * The candidate as JSON the way AgentV reads it: code fences dropped, then the outermost
 * `{...}` span, so prose around a JSON object is tolerated. Null when that is not an object.
 */
export function parseJsonObject(text: string): Json | null {
  const cleaned = text.replace(/```json\n?|```/g, '').trim();
  const start = cleaned.indexOf('{');
  const end = cleaned.lastIndexOf('}');
  const blob = start >= 0 && end > start ? cleaned.slice(start, end + 1) : cleaned;
  try {
    const v: unknown = JSON.parse(blob);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/** `a.b[0].c` → the value, or undefined when any step is missing. */
export function resolvePath(obj: unknown, path: string): unknown {
  const parts = path.split(/\.|\[|\]/).filter((p) => p.length > 0);
  if (parts.length === 0) return undefined;
  let current: unknown = obj;
  for (const part of parts) {
    if (current === null || typeof current !== 'object') return undefined;
    current =
      /^\d+$/.test(part) && Array.isArray(current)
        ? current[Number(part)]
        : (current as Record<string, unknown>)[part];
  }
  return current;
}

function compareField(f: FieldSpec, candidate: Json, expected: Json): FieldResult {
  const got = resolvePath(candidate, f.path);
  const want = resolvePath(expected, f.path);
  const hit = (message: string): FieldResult => ({ score: 1, weight: f.weight, hit: true, message });
  const miss = (message: string): FieldResult => ({ score: 0, weight: f.weight, hit: false, message });
  // As AgentV: nothing expected counts as a match, at the field's full weight.
  if (want === undefined) return hit(`${f.path}: no expected value`);
  if (got === undefined) {
    if (f.required) return miss(`${f.path} (required, missing)`);
    return { score: 1, weight: 0, hit: true, message: `${f.path}: optional field missing` };
  }
  switch (f.match) {
    case 'exact':
      if (deepEqual(got, want)) return hit(f.path);
      if (typeof got !== typeof want)
        return miss(`${f.path} (type mismatch: got ${typeof got}, expected ${typeof want})`);
      return miss(`${f.path} (value mismatch)`);
    case 'numeric_tolerance':
      return compareNumbers(f, got, want, hit, miss);
    case 'date':
      return compareDates(f, got, want, hit, miss);
  }
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = Number.parseFloat(v);
    return Number.isNaN(n) ? null : n;
  }
  return null;
}

function compareNumbers(
  f: FieldSpec,
  got: unknown,
  want: unknown,
  hit: (m: string) => FieldResult,
  miss: (m: string) => FieldResult,
): FieldResult {
  const a = toNumber(got);
  const b = toNumber(want);
  if (a === null || b === null) return miss(`${f.path} (non-numeric value)`);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return miss(`${f.path} (invalid numeric value)`);
  const diff = Math.abs(a - b);
  // Relative to the expected value; against 0 the absolute difference is used.
  const measured = f.relative && b !== 0 ? diff / Math.abs(b) : diff;
  if (measured <= f.tolerance) return hit(`${f.path} (within tolerance: diff=${diff.toFixed(2)})`);
  return miss(`${f.path} (outside tolerance: diff=${diff.toFixed(2)}, tolerance=${f.tolerance})`);
}

function compareDates(
  f: FieldSpec,
  got: unknown,
  want: unknown,
  hit: (m: string) => FieldResult,
  miss: (m: string) => FieldResult,
): FieldResult {
  const formats = f.formats ?? DEFAULT_DATE_FORMATS;
  const a = parseDate(String(got), formats);
  const b = parseDate(String(want), formats);
  if (!a) return miss(`${f.path} (unparseable candidate date)`);
  if (!b) return miss(`${f.path} (unparseable expected date)`);
  if (a.y === b.y && a.m === b.m && a.d === b.d) return hit(f.path);
  return miss(`${f.path} (date mismatch: got ${iso(a)}, expected ${iso(b)})`);
}

const DEFAULT_DATE_FORMATS = [
  'YYYY-MM-DDTHH:mm:ssZ',
  'YYYY-MM-DDTHH:mm:ss',
  'YYYY-MM-DD',
  'DD-MMM-YYYY',
  'MM/DD/YYYY',
  'DD/MM/YYYY',
  'MM-DD-YYYY',
  'DD-MM-YYYY',
];

const MONTHS: Record<string, number> = {
  jan: 0,
  january: 0,
  feb: 1,
  february: 1,
  mar: 2,
  march: 2,
  apr: 3,
  april: 3,
  may: 4,
  jun: 5,
  june: 5,
  jul: 6,
  july: 6,
  aug: 7,
  august: 7,
  sep: 8,
  sept: 8,
  september: 8,
  oct: 9,
  october: 9,
  nov: 10,
  november: 10,
  dec: 11,
  december: 11,
};

interface Ymd {
  y: number;
  m: number;
  d: number;
}

const iso = (v: Ymd) =>
  `${String(v.y).padStart(4, '0')}-${String(v.m + 1).padStart(2, '0')}-${String(v.d).padStart(2, '0')}`;

/** A calendar date normalised through `Date` (so 31 April rolls over, as AgentV's does). */
function ymd(y: number, m: number, d: number): Ymd {
  const dt = new Date(Date.UTC(y, m, d));
  return { y: dt.getUTCFullYear(), m: dt.getUTCMonth(), d: dt.getUTCDate() };
}

/**
 * AgentV's date reading: ISO first, then `DD-MMM-YYYY`, then `NN/NN/YYYY` (or dashes) read as
 * US or EU by the formats given, or by which number cannot be a month, US when ambiguous.
 */
export function parseDate(text: string, formats: readonly string[]): Ymd | null {
  const t = text.trim();
  if (!t) return null;
  const isoMatch = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(t);
  if (isoMatch) {
    const native = new Date(t);
    if (!Number.isNaN(native.getTime())) return ymd(+isoMatch[1]!, +isoMatch[2]! - 1, +isoMatch[3]!);
  }
  const named = /^(\d{1,2})-([A-Za-z]{3,9})-(\d{4})$/.exec(t);
  if (named) {
    const month = MONTHS[named[2]!.toLowerCase()];
    if (month !== undefined) return ymd(+named[3]!, month, +named[1]!);
  }
  const numeric = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(t);
  if (numeric) {
    const [a, b, y] = [+numeric[1]!, +numeric[2]!, +numeric[3]!];
    const us = formats.some((f) => f.includes('MM/DD') || f.includes('MM-DD'));
    const eu = formats.some((f) => f.includes('DD/MM') || f.includes('DD-MM'));
    const valid = (m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= 31;
    if (us && !eu) return valid(a, b) ? ymd(y, a - 1, b) : null;
    if (eu && !us) return valid(b, a) ? ymd(y, b - 1, a) : null;
    if (a > 12 && b <= 12) return ymd(y, b - 1, a);
    if (b > 12 && a <= 12) return ymd(y, a - 1, b);
    if (a <= 12 && b <= 31) return ymd(y, a - 1, b);
  }
  return null;
}
