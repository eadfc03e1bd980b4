import { type EffectRow, type RunEffect } from './results.js';

/** A signed number with a true minus sign, and no sign on zero. */
const signed = (x: number, digits: number, scale: number): string => {
  const v = Number((x * scale).toFixed(digits));
  if (v === 0) return (0).toFixed(digits);
  return `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(digits)}`;
};

/** Pass rates read in percentage points, scores on their own 0..1 scale. */
const scaleOf = (r: EffectRow) =>
  r.metric === 'pass'
    ? {
        name: 'pass rate',
        level: (x: number) => `${Math.round(x * 100)}%`,
        diff: (x: number) => signed(x, 0, 100),
        unit: ' points',
      }
    : { name: 'score', level: (x: number) => x.toFixed(2), diff: (x: number) => signed(x, 2, 1), unit: '' };

/** `−8 points, 95% CI −13 to −3`: the difference and its interval. */
export function effectNumbers(r: EffectRow): string {
  const s = scaleOf(r);
  return `${s.diff(r.delta)}${s.unit}, 95% CI ${s.diff(r.delta_low)} to ${s.diff(r.delta_high)}`;
}

/** What the suite could have seen: the mde, or that no drop is detectable at this size. */
function detectsLine(r: EffectRow): string {
  const s = scaleOf(r);
  if (r.mde === null)
    return `with ${r.n} cases${r.clusters < r.n ? ` in ${r.clusters} clusters` : ''} this suite cannot detect a drop`;
  return `this suite detects drops of ${s.diff(r.mde).replace('+', '')}${s.unit} or more`;
}

/**
 * `pass rate 82% → 74% (−8 points, 95% CI −13 to −3): regressed; this suite detects drops of 9
 * points or more`: one metric's overall effect in one line (comment, summary, terminal).
 */
export function effectLine(r: EffectRow): string {
  const s = scaleOf(r);
  return `${s.name} ${s.level(r.base_mean)} → ${s.level(r.head_mean)} (${effectNumbers(r)}): ${r.verdict}; ${detectsLine(r)}`;
}

/** The overall effect's lines, pass rate first; or why there is none (too few paired cases). */
export function effectLines(effect: RunEffect): string[] {
  if (effect.overall.length === 0)
    return [
      `effect: not stated, ${effect.paired} case${effect.paired === 1 ? '' : 's'} judged on both sides (10 needed)`,
    ];
  return overallRows(effect).map(effectLine);
}

/** The overall rows in the order a reviewer reads them: the pass rate, then the score. */
export function overallRows(effect: RunEffect): EffectRow[] {
  return (['pass', 'score'] as const).flatMap((m) => effect.overall.filter((r) => r.metric === m));
}
