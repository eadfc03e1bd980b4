import { type DiagnosticSink, type Position } from '../core/diagnostics.js';
import { KNOWN_BAND_KEYS, KNOWN_RUBRIC_KEYS } from './schema.js';
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

export interface RubricParseContext {
  sink: DiagnosticSink;
  /** Position of a value below the rubric list, by path relative to the list. */
  locate(path: readonly PathSegment[]): Position;
  locateKey(path: readonly PathSegment[]): Position;
}

type ItemKind = 'checklist' | 'score_range';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Turns a structurally valid `rubrics` list into the rubric model, reporting every semantic
 * problem (ids, weights, score ranges, mixing) with its position. Returns undefined on errors.
 */
export function parseRubricList(raw: readonly unknown[], ctx: RubricParseContext): RubricSet | undefined {
  const { sink } = ctx;
  const before = sink.items.length;
  const checklist: ChecklistItem[] = [];
  const ranges: RangeCriterion[] = [];
  const kinds: { kind: ItemKind; id: string; index: number }[] = [];
  const seenIds = new Map<string, number>();

  raw.forEach((item, index) => {
    const fallbackId = `rubric-${index + 1}`;
    if (typeof item === 'string') {
      checklist.push({ id: fallbackId, outcome: item, weight: 1, required: true });
      kinds.push({ kind: 'checklist', id: fallbackId, index });
      noteId(fallbackId, index);
      return;
    }
    if (!isRecord(item)) return; // the schema already reported it
    const id = item.id === undefined ? fallbackId : String(item.id);
    const subject = `rubric '${id}'`;
    noteId(id, index);
    checkUnknownKeys(item, KNOWN_RUBRIC_KEYS, {
      sink,
      locateKey: (key) => ctx.locateKey([index, key]),
      subject,
    });
    const outcome = firstString(item.expected_outcome, item.description, item.outcome) ?? '';
    const weight = checkWeight(item.weight, index, subject);
    const hasRanges = item.score_ranges !== undefined;
    kinds.push({ kind: hasRanges ? 'score_range' : 'checklist', id, index });

    if (!hasRanges) {
      if (outcome.trim() === '') {
        sink.error(
          ctx.locate([index]),
          'empty-outcome',
          'a checklist item needs a non-empty expected_outcome',
          subject,
        );
      }
      if (item.required_min_score !== undefined) {
        sink.error(
          ctx.locateKey([index, 'required_min_score']),
          'mixed',
          'required_min_score applies to score-range items; this item has no score_ranges (use required: true/false)',
          subject,
        );
      }
      checklist.push({ id, outcome, weight, required: item.required !== false });
      return;
    }

    const bands = readBands(item.score_ranges, [index, 'score_ranges'], subject);
    let requiredMinScore: number | null = null;
    if (item.required_min_score !== undefined) {
      const min = item.required_min_score as number;
      const pos = ctx.locate([index, 'required_min_score']);
      if (!Number.isInteger(min))
        sink.error(pos, 'integer', `required_min_score ${min} must be an integer`, subject);
      else if (min < SCORE_MIN || min > SCORE_MAX)
        sink.error(pos, 'bounds', `required_min_score ${min} is outside ${SCORE_MIN}..${SCORE_MAX}`, subject);
      else requiredMinScore = min;
    } else if (item.required === true) {
      // Seed 004: `required` is the deprecated alias of `required_min_score: 10`.
      requiredMinScore = SCORE_MAX;
    }
    if (bands) ranges.push({ id, outcome, weight, requiredMinScore, bands: toScoreBands(bands) });
  });

  const firstChecklist = kinds.find((k) => k.kind === 'checklist');
  const firstRange = kinds.find((k) => k.kind === 'score_range');
  if (firstChecklist && firstRange) {
    const later = firstChecklist.index > firstRange.index ? firstChecklist : firstRange;
    sink.error(
      ctx.locate([later.index]),
      'mixed',
      `rubrics mix checklist items ('${firstChecklist.id}') and score-range items ('${firstRange.id}'); use one kind per list, or two llm_judge evaluators`,
      `rubric '${later.id}'`,
    );
  }
  if (raw.length === 0) sink.error(ctx.locate([]), 'empty', 'rubrics list is empty');

  if (sink.items.slice(before).some((d) => d.severity === 'error')) return undefined;
  return firstRange ? { mode: 'score_range', items: ranges } : { mode: 'checklist', items: checklist };

  function noteId(id: string, index: number): void {
    const prior = seenIds.get(id);
    if (prior !== undefined) {
      sink.error(
        ctx.locate([index]),
        'duplicate-id',
        `id '${id}' is already used by item ${prior + 1} of this list`,
        `rubric '${id}'`,
      );
    } else seenIds.set(id, index);
  }

  function checkWeight(w: unknown, index: number, subject: string): number {
    if (w === undefined) return 1;
    const weight = w as number;
    if (!Number.isFinite(weight) || weight < 0) {
      sink.error(
        ctx.locate([index, 'weight']),
        'weight',
        `weight ${weight} must be a finite number >= 0`,
        subject,
      );
      return 0;
    }
    return weight;
  }

  function readBands(value: unknown, path: PathSegment[], subject: string): BandInput[] | undefined {
    let bands: BandInput[];
    if (Array.isArray(value)) {
      bands = [];
      let ok = true;
      value.forEach((entry, i) => {
        if (!isRecord(entry)) return;
        checkUnknownKeys(entry, KNOWN_BAND_KEYS, {
          sink,
          locateKey: (key) => ctx.locateKey([...path, i, key]),
          subject,
        });
        const range = entry.score_range as unknown[];
        const pos = ctx.locate([...path, i, 'score_range']);
        if (range.length !== 2) {
          sink.error(pos, 'bounds', `score_range must be [min, max], got ${range.length} value(s)`, subject);
          ok = false;
          return;
        }
        const outcome = firstString(entry.expected_outcome, entry.description) ?? '';
        bands.push({ min: range[0] as number, max: range[1] as number, outcome, pos });
      });
      if (!ok) return undefined;
    } else if (isRecord(value)) {
      const entries = Object.entries(value).map(([key, outcome]) => ({
        key,
        outcome: String(outcome ?? ''),
        pos: ctx.locateKey([...path, key]),
      }));
      let ok = true;
      for (const e of entries) {
        const n = Number(e.key);
        if (e.key.trim() === '' || !Number.isInteger(n)) {
          sink.error(e.pos, 'integer', `lower bound '${e.key}' must be an integer`, subject);
          ok = false;
        } else if (n < SCORE_MIN || n > SCORE_MAX) {
          sink.error(e.pos, 'bounds', `lower bound ${n} is outside ${SCORE_MIN}..${SCORE_MAX}`, subject);
          ok = false;
        }
      }
      if (!ok) return undefined;
      bands = bandsFromLowerBounds(entries);
    } else return undefined;
    if (bands.length === 0) {
      sink.error(ctx.locate(path), 'coverage', 'score_ranges is empty: the bands must cover 0..10', subject);
      return undefined;
    }
    const problems = checkScoreBands(bands, ctx.locate(path));
    for (const p of problems) sink.error(p.pos, p.rule, p.message, subject);
    return problems.length === 0 ? bands : undefined;
  }
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string') return v;
  return undefined;
}
