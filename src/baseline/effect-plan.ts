import { detectableDrop, type Spread } from './effect-stats.js';
import { MIN_PAIRED } from './effect.js';

/** A baseline case's values of one metric: one, or one per repeated answer. */
export type CaseValues = readonly number[];

/** The largest suite `plan` searches, and the most repeats it proposes. */
const MAX_CASES = 10_000_000;
const MAX_PLAN_REPEATS = 1000;

export type PlanAnswer =
  | { by: 'cases'; cases: number; variance: number }
  | { by: 'repeats'; cases: number; repeats: number; variance: number }
  | { by: 'none'; variance: number; reason: string };

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sampleVariance = (xs: readonly number[]) => {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
};

/**
 * The spread `pairedSpread` would find on n independent cases whose differences have variance
 * `varD` (its floor included, so that `plan` and the effect agree on what a suite detects).
 */
function spreadAt(n: number, varD: number): Spread {
  return { n, clusters: n, mean: 0, se: Math.sqrt(n * varD + 1) / n, df: n - 1 };
}

/** The smallest count in [from, max] for which `ok` holds, `ok` being false below it and true from it on. */
function smallest(from: number, max: number, ok: (k: number) => boolean): number | null {
  let hi = from;
  while (!ok(hi)) {
    if (hi >= max) return null;
    hi = Math.min(max, hi * 2);
  }
  let lo = Math.max(from, Math.floor(hi / 2));
  if (ok(lo)) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * `rubric-eval plan`: how many cases (or, with repeats, answers per case) a suite needs for a true
 * drop of `drop` to read `regressed` in 80% of runs. var(d) is twice the baseline's per-case
 * variance (across cases; with repeats, within a case across its answers): head and base each
 * bring that much. Cases are taken as independent (clusters make a suite need more). A drop
 * smaller than the margin has no answer: the effect forgives it.
 */
export function planFor(cases: readonly CaseValues[], drop: number, margin: number): PlanAnswer {
  const repeated = cases.some((c) => c.length > 1);
  const variance = repeated
    ? mean(cases.filter((c) => c.length > 1).map(sampleVariance))
    : sampleVariance(cases.map((c) => c[0] ?? 0));
  const base = mean(cases.map(mean));
  const detects = (n: number, varD: number) => {
    const mde = detectableDrop(spreadAt(n, varD), margin, base);
    return mde !== null && mde <= drop;
  };
  const none = (reason: string): PlanAnswer => ({ by: 'none', variance, reason });
  if (drop < margin)
    return none(
      `a drop of ${drop} is within the effect margin (${margin}): the effect forgives it, so no suite size reads it as regressed 80% of the time`,
    );
  if (drop > base) return none(`the baseline's mean is ${base.toFixed(2)}: it cannot drop by ${drop}`);
  if (repeated) {
    const n = cases.length;
    const k = smallest(1, MAX_PLAN_REPEATS, (r) => detects(n, (2 * variance) / r));
    return k === null
      ? none(`no number of repeats up to ${MAX_PLAN_REPEATS} on ${n} cases reads it as regressed`)
      : { by: 'repeats', cases: n, repeats: k, variance };
  }
  const n = smallest(MIN_PAIRED, MAX_CASES, (m) => detects(m, 2 * variance));
  if (n === null) return none(`no suite up to ${MAX_CASES} cases reads it as regressed`);
  return { by: 'cases', cases: n, variance };
}
