import { type DiagnosticSink, type Position } from '../core/diagnostics.js';
import { KNOWN_BAND_KEYS, KNOWN_RUBRIC_KEYS } from './v2/schema.js';
import { checkUnknownKeys } from '../core/unknown-keys.js';
import { type PathSegment } from '../core/yaml-source.js';
import {
  bandsFromLowerBounds,
  checkScoreBands,
  SCORE_MAX,
  SCORE_MIN,
  toScoreBands,
  type BandInput,
} from '../rubric/score-ranges.js';
import { type ChecklistItem, type RangeCriterion, type RubricSet } from '../rubric/types.js';
import { isRecord } from '../core/is-record.js';

export interface RubricParseContext {
  sink: DiagnosticSink;
  /** Position of a value below the rubric list, by path relative to the list. */
  locate(path: readonly PathSegment[]): Position;
  locateKey(path: readonly PathSegment[]): Position;
}

type ItemKind = 'checklist' | 'score_range';

/** Where each item of a list was read as what kind, for the check that a list does not mix them. */
type ItemKinds = { kind: ItemKind; id: string; index: number }[];

/** What the items read so far hold: the model items, their kinds, and the ids already used. */
interface ListState {
  checklist: ChecklistItem[];
  ranges: RangeCriterion[];
  kinds: ItemKinds;
  seenIds: Map<string, number>;
}

/**
 * Turns a structurally valid `rubrics` list into the rubric model, reporting every semantic
 * problem (ids, weights, score ranges, mixing) with its position. Returns undefined on errors.
 */
export function parseRubricList(raw: readonly unknown[], ctx: RubricParseContext): RubricSet | undefined {
  const { sink } = ctx;
  const before = sink.items.length;
  const state: ListState = { checklist: [], ranges: [], kinds: [], seenIds: new Map() };
  raw.forEach((item, index) => readItem(item, index, state, ctx));
  const firstRange = checkOneKind(state.kinds, ctx);
  if (raw.length === 0) sink.error(ctx.locate([]), 'empty', 'rubrics list is empty');

  if (sink.items.slice(before).some((d) => d.severity === 'error')) return undefined;
  return firstRange
    ? { mode: 'score_range', items: state.ranges }
    : { mode: 'checklist', items: state.checklist };
}

/** One item of the list: a plain string is a required checklist item; an object is either kind. */
function readItem(item: unknown, index: number, state: ListState, ctx: RubricParseContext): void {
  const fallbackId = `rubric-${index + 1}`;
  if (typeof item === 'string') {
    state.checklist.push({ id: fallbackId, outcome: item, weight: 1, required: true });
    state.kinds.push({ kind: 'checklist', id: fallbackId, index });
    noteId(fallbackId, index, state.seenIds, ctx);
    return;
  }
  if (!isRecord(item)) return; // the schema already reported it
  const id = item.id === undefined ? fallbackId : String(item.id);
  const subject = `rubric '${id}'`;
  noteId(id, index, state.seenIds, ctx);
  checkUnknownKeys(item, KNOWN_RUBRIC_KEYS, {
    sink: ctx.sink,
    locateKey: (key) => ctx.locateKey([index, key]),
    subject,
  });
  const outcome = firstString(item.expected_outcome, item.description, item.outcome) ?? '';
  const weight = checkWeight(item.weight, index, subject, ctx);
  const hasRanges = item.score_ranges !== undefined;
  state.kinds.push({ kind: hasRanges ? 'score_range' : 'checklist', id, index });
  if (hasRanges) {
    const range = readRangeItem(item, { id, outcome, weight }, index, subject, ctx);
    if (range) state.ranges.push(range);
  } else state.checklist.push(readChecklistItem(item, { id, outcome, weight }, index, subject, ctx));
}

interface ItemHead {
  id: string;
  outcome: string;
  weight: number;
}

function readChecklistItem(
  item: Record<string, unknown>,
  head: ItemHead,
  index: number,
  subject: string,
  ctx: RubricParseContext,
): ChecklistItem {
  if (head.outcome.trim() === '') {
    ctx.sink.error(
      ctx.locate([index]),
      'empty-outcome',
      'a checklist item needs a non-empty expected_outcome',
      subject,
    );
  }
  if (item.required_min_score !== undefined) {
    ctx.sink.error(
      ctx.locateKey([index, 'required_min_score']),
      'mixed',
      'required_min_score applies to score-range items; this item has no score_ranges (use required: true/false)',
      subject,
    );
  }
  return { ...head, required: item.required !== false };
}

/** A score-range item; undefined when its bands do not hold (they were reported). */
function readRangeItem(
  item: Record<string, unknown>,
  head: ItemHead,
  index: number,
  subject: string,
  ctx: RubricParseContext,
): RangeCriterion | undefined {
  const bands = readBands(item.score_ranges, [index, 'score_ranges'], subject, ctx);
  let requiredMinScore: number | null = null;
  if (item.required_min_score !== undefined) {
    const min = item.required_min_score as number;
    const pos = ctx.locate([index, 'required_min_score']);
    if (!Number.isInteger(min))
      ctx.sink.error(pos, 'integer', `required_min_score ${min} must be an integer`, subject);
    else if (min < SCORE_MIN || min > SCORE_MAX)
      ctx.sink.error(
        pos,
        'bounds',
        `required_min_score ${min} is outside ${SCORE_MIN}..${SCORE_MAX}`,
        subject,
      );
    else requiredMinScore = min;
  } else if (item.required === true) {
    // `required: true` on a score-range item is the deprecated spelling of `required_min_score: 10`.
    requiredMinScore = SCORE_MAX;
  }
  return bands ? { ...head, requiredMinScore, bands: toScoreBands(bands) } : undefined;
}

/**
 * A list is all checklist items or all score-range items (one judge answer shape per list); the
 * first item of the later kind is the error. Returns the first score-range item, if any.
 */
function checkOneKind(kinds: ItemKinds, ctx: RubricParseContext): ItemKinds[number] | undefined {
  const firstChecklist = kinds.find((k) => k.kind === 'checklist');
  const firstRange = kinds.find((k) => k.kind === 'score_range');
  if (firstChecklist && firstRange) {
    const later = firstChecklist.index > firstRange.index ? firstChecklist : firstRange;
    ctx.sink.error(
      ctx.locate([later.index]),
      'mixed',
      `rubrics mix checklist items ('${firstChecklist.id}') and score-range items ('${firstRange.id}'); use one kind per list, or two llm_judge evaluators`,
      `rubric '${later.id}'`,
    );
  }
  return firstRange;
}

function noteId(id: string, index: number, seenIds: Map<string, number>, ctx: RubricParseContext): void {
  const prior = seenIds.get(id);
  if (prior !== undefined) {
    ctx.sink.error(
      ctx.locate([index]),
      'duplicate-id',
      `id '${id}' is already used by item ${prior + 1} of this list`,
      `rubric '${id}'`,
    );
  } else seenIds.set(id, index);
}

function checkWeight(w: unknown, index: number, subject: string, ctx: RubricParseContext): number {
  if (w === undefined) return 1;
  const weight = w as number;
  if (!Number.isFinite(weight) || weight < 0) {
    ctx.sink.error(
      ctx.locate([index, 'weight']),
      'weight',
      `weight ${weight} must be a finite number >= 0`,
      subject,
    );
    return 0;
  }
  return weight;
}

/**
 * `score_ranges` in either form AgentV accepts (a list of `{score_range: [min, max]}` bands, or a
 * map from lower bound to outcome), checked to cover 0..10 without gaps or overlaps.
 */
function readBands(
  value: unknown,
  path: PathSegment[],
  subject: string,
  ctx: RubricParseContext,
): BandInput[] | undefined {
  let bands: BandInput[] | undefined;
  if (Array.isArray(value)) bands = readBandList(value, path, subject, ctx);
  else if (isRecord(value)) bands = readLowerBounds(value, path, subject, ctx);
  if (!bands) return undefined;
  if (bands.length === 0) {
    ctx.sink.error(
      ctx.locate(path),
      'coverage',
      'score_ranges is empty: the bands must cover 0..10',
      subject,
    );
    return undefined;
  }
  const problems = checkScoreBands(bands, ctx.locate(path));
  for (const p of problems) ctx.sink.error(p.pos, p.rule, p.message, subject);
  return problems.length === 0 ? bands : undefined;
}

/** The list form: `- score_range: [min, max]` with its `expected_outcome`. */
function readBandList(
  value: unknown[],
  path: PathSegment[],
  subject: string,
  ctx: RubricParseContext,
): BandInput[] | undefined {
  const bands: BandInput[] = [];
  let ok = true;
  value.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    checkUnknownKeys(entry, KNOWN_BAND_KEYS, {
      sink: ctx.sink,
      locateKey: (key) => ctx.locateKey([...path, i, key]),
      subject,
    });
    const range = entry.score_range as unknown[];
    const pos = ctx.locate([...path, i, 'score_range']);
    if (range.length !== 2) {
      ctx.sink.error(pos, 'bounds', `score_range must be [min, max], got ${range.length} value(s)`, subject);
      ok = false;
      return;
    }
    const outcome = firstString(entry.expected_outcome, entry.description) ?? '';
    bands.push({ min: range[0] as number, max: range[1] as number, outcome, pos });
  });
  return ok ? bands : undefined;
}

/** The map form: each key is a band's lower bound, the band running up to the next one. */
function readLowerBounds(
  value: Record<string, unknown>,
  path: PathSegment[],
  subject: string,
  ctx: RubricParseContext,
): BandInput[] | undefined {
  const entries = Object.entries(value).map(([key, outcome]) => ({
    key,
    outcome: String(outcome ?? ''),
    pos: ctx.locateKey([...path, key]),
  }));
  let ok = true;
  for (const e of entries) {
    const n = Number(e.key);
    if (e.key.trim() === '' || !Number.isInteger(n)) {
      ctx.sink.error(e.pos, 'integer', `lower bound '${e.key}' must be an integer`, subject);
      ok = false;
    } else if (n < SCORE_MIN || n > SCORE_MAX) {
      ctx.sink.error(e.pos, 'bounds', `lower bound ${n} is outside ${SCORE_MIN}..${SCORE_MAX}`, subject);
      ok = false;
    }
  }
  return ok ? bandsFromLowerBounds(entries) : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string') return v;
  return undefined;
}
