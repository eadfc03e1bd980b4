import { type CaseResult, type EffectRow, type RunEffect, type RunResults } from '../core/results.js';
import { detectableDrop, EFFECT_METHOD, effectVerdict, interval, pairedSpread } from './effect-stats.js';
import { passCountOf } from './rate-change.js';

/** Fewer paired cases than this: no effect is stated (docs/effect.md). */
export const MIN_PAIRED = 10;

/** One case judged on both sides: its two values of each metric and its cluster key. */
interface Pair {
  cluster: string;
  score: [base: number, head: number];
  pass: [base: number, head: number];
}

const judged = (v: string | null | undefined) => v != null && v !== 'error' && v !== 'skipped';

/**
 * The case paired with its baseline, or null when it is not comparable: new, redefined, only
 * advisory checks judged it, or either side errored or was skipped (no evidence either way).
 */
function pairOf(suite: string, c: CaseResult): Pair | null {
  const b = c.baseline;
  if (!b || b.change === 'new' || b.change === 'redefined' || c.advisory_only) return null;
  if (!judged(c.verdict) || !judged(b.verdict) || b.score === null) return null;
  const head = passCountOf(c);
  const basePass = typeof b.pass_rate === 'number' ? b.pass_rate : b.verdict === 'pass' ? 1 : 0;
  return {
    // A cluster's name is the suite file's own; a case without one is a cluster of itself.
    cluster: c.cluster === undefined ? `${suite}\0#${c.id}` : `${suite}\0${c.cluster}`,
    score: [b.score, c.score],
    pass: [basePass, head.passed / head.answers],
  };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** One metric's row over the pairs (at least MIN_PAIRED of them). */
function effectRow(pairs: readonly Pair[], metric: 'score' | 'pass', margin: number): EffectRow {
  const index = new Map<string, number>();
  const clusterOf = pairs.map(
    (p) => index.get(p.cluster) ?? (index.set(p.cluster, index.size), index.size - 1),
  );
  const diffs = pairs.map((p) => p[metric][1] - p[metric][0]);
  let base = 0;
  for (const p of pairs) base += p[metric][0];
  const baseMean = base / pairs.length;
  const spread = pairedSpread(diffs, clusterOf, index.size);
  const ci = interval(spread);
  const low = round4(ci.low);
  const high = round4(ci.high);
  const mde = detectableDrop(spread, margin, baseMean);
  return {
    metric,
    n: pairs.length,
    clusters: spread.clusters,
    base_mean: round4(baseMean),
    head_mean: round4(baseMean + spread.mean),
    delta: round4(spread.mean),
    delta_low: low,
    delta_high: high,
    mde: mde === null ? null : round4(mde),
    margin,
    verdict: effectVerdict(low, high, margin),
    method: EFFECT_METHOD,
  };
}

const rowsOf = (pairs: readonly Pair[], margin: number): EffectRow[] =>
  pairs.length < MIN_PAIRED ? [] : [effectRow(pairs, 'score', margin), effectRow(pairs, 'pass', margin)];

/**
 * The pull request's effect (docs/effect.md): per suite and overall, the mean paired difference
 * head − base of the case score and of passing, over the cases compared with the baseline (run
 * `compareWithBaseline` first), its 95% interval, the drop the suite could detect and the verdict
 * against `margin`. Null without a baseline. Pure and deterministic: a re-run gives the same rows.
 */
export function measureEffect(compared: RunResults, margin: number): RunEffect | null {
  if (!compared.baseline) return null;
  const all: Pair[] = [];
  const suites: RunEffect['suites'] = [];
  for (const s of compared.suites) {
    const pairs = s.cases.map((c) => pairOf(s.path, c)).filter((p): p is Pair => p !== null);
    all.push(...pairs);
    const rows = rowsOf(pairs, margin);
    if (rows.length > 0) suites.push({ path: s.path, rows });
  }
  return { margin, paired: all.length, overall: rowsOf(all, margin), suites };
}
