import { type Position } from '../core/diagnostics.js';
import { type ScoreBand } from './types.js';

export const SCORE_MIN = 0;
export const SCORE_MAX = 10;

type ScoreRangeRule = 'bounds' | 'integer' | 'order' | 'overlap' | 'coverage' | 'empty-outcome';

export interface ScoreRangeProblem {
  rule: ScoreRangeRule;
  message: string;
  pos: Position;
}

/** One band as written, before checks: bounds may be anything numeric. */
export interface BandInput {
  min: number;
  max: number;
  outcome: string;
  pos: Position;
}

const fmt = (b: { min: number; max: number }) => `[${b.min}, ${b.max}]`;

/**
 * Checks a criterion's bands against the band rules: integer bounds within 0..10,
 * min <= max, no overlap, every integer of 0..10 covered, a non-empty outcome per band.
 * Returns every problem (not just the first) so a user fixes the rubric in one pass.
 */
export function checkScoreBands(bands: readonly BandInput[], fallbackPos: Position): ScoreRangeProblem[] {
  const problems: ScoreRangeProblem[] = [];
  const usable: BandInput[] = [];
  for (const b of bands) {
    let ok = true;
    if (!Number.isInteger(b.min) || !Number.isInteger(b.max)) {
      problems.push({ rule: 'integer', message: `${fmt(b)} bounds must be integers`, pos: b.pos });
      ok = false;
    }
    if (b.min < SCORE_MIN || b.max > SCORE_MAX || b.max < SCORE_MIN || b.min > SCORE_MAX) {
      problems.push({
        rule: 'bounds',
        message: `${fmt(b)} is outside ${SCORE_MIN}..${SCORE_MAX}`,
        pos: b.pos,
      });
      ok = false;
    }
    if (b.min > b.max) {
      problems.push({ rule: 'order', message: `${fmt(b)} has min greater than max`, pos: b.pos });
      ok = false;
    }
    if (b.outcome.trim() === '') {
      problems.push({ rule: 'empty-outcome', message: `${fmt(b)} has no expected_outcome`, pos: b.pos });
    }
    if (ok) usable.push(b);
  }
  const sorted = [...usable].sort((a, b) => a.min - b.min || a.max - b.max);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (cur.min <= prev.max) {
      problems.push({ rule: 'overlap', message: `${fmt(prev)} overlaps ${fmt(cur)}`, pos: cur.pos });
    }
  }
  // Coverage is only meaningful once the bands themselves are sound.
  if (usable.length === bands.length) {
    const covered = new Set<number>();
    for (const b of usable) for (let s = b.min; s <= b.max; s++) covered.add(s);
    const missing: number[] = [];
    for (let s = SCORE_MIN; s <= SCORE_MAX; s++) if (!covered.has(s)) missing.push(s);
    if (missing.length > 0) {
      problems.push({
        rule: 'coverage',
        message: `scores ${compactList(missing)} of ${SCORE_MIN}..${SCORE_MAX} are not covered by any band`,
        pos: bands[0]?.pos ?? fallbackPos,
      });
    }
  }
  return problems;
}

/** `[0, 1, 2, 5]` → `0-2, 5` */
function compactList(values: number[]): string {
  const parts: string[] = [];
  let start = values[0]!;
  let prev = start;
  for (const v of [...values.slice(1), Number.NaN]) {
    if (v === prev + 1) {
      prev = v;
      continue;
    }
    parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = v;
    prev = v;
  }
  return parts.join(', ');
}

/** Bands of the shorthand map form `{0: "...", 3: "...", 8: "..."}`: keys are lower bounds. */
export function bandsFromLowerBounds(
  entries: readonly { key: string; outcome: string; pos: Position }[],
): BandInput[] {
  const parsed = entries.map((e) => ({ ...e, lower: Number(e.key) })).sort((a, b) => a.lower - b.lower);
  return parsed.map((e, i) => {
    const next = parsed[i + 1];
    const max = next ? next.lower - 1 : SCORE_MAX;
    return { min: e.lower, max: Number.isNaN(e.lower) ? Number.NaN : max, outcome: e.outcome, pos: e.pos };
  });
}

export function toScoreBands(bands: readonly BandInput[]): ScoreBand[] {
  return [...bands].sort((a, b) => a.min - b.min).map(({ min, max, outcome }) => ({ min, max, outcome }));
}
