import { type BinaryAgreement, type RangeAgreement } from '../core/calibration-results.js';
import { mulberry32 } from '../core/seeded-random.js';

/**
 * Agreement between the judge and people (README "Judge calibration"): pure statistics, no I/O. The human label
 * is the reference: TPR is the share of the human's "yes" the judge also said yes to.
 */

/** Below this many pairs no κ is given: with so few labels its interval spans almost everything. */
const MIN_LABELS_FOR_KAPPA = 10;
const BOOTSTRAP_RESAMPLES = 1000;
const BOOTSTRAP_SEED = 1;
/** Range criteria: the judge's score categories. */
const CATEGORIES = 11;

export interface BinaryPair {
  judge: boolean;
  human: boolean;
}

export interface ScorePair {
  judge: number;
  human: number;
}

/** Cohen's κ of two binary raters; null when chance agreement is 1 (both used one and the same class). */
export function cohenKappa(pairs: readonly BinaryPair[]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  let agree = 0;
  let judgeYes = 0;
  let humanYes = 0;
  for (const p of pairs) {
    if (p.judge === p.human) agree++;
    if (p.judge) judgeYes++;
    if (p.human) humanYes++;
  }
  const po = agree / n;
  const pe = (judgeYes / n) * (humanYes / n) + (1 - judgeYes / n) * (1 - humanYes / n);
  if (Math.abs(1 - pe) < 1e-12) return null;
  return (po - pe) / (1 - pe);
}

/**
 * Quadratic-weighted κ over the categories 0..10 (scikit-learn's `cohen_kappa_score(weights=
 * 'quadratic', labels=range(11))`); null when the expected disagreement is 0 (both sides gave
 * one and the same score throughout).
 */
export function weightedKappa(pairs: readonly ScorePair[]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  const judgeCount = new Array<number>(CATEGORIES).fill(0);
  const humanCount = new Array<number>(CATEGORIES).fill(0);
  let observed = 0;
  for (const p of pairs) {
    judgeCount[p.judge]!++;
    humanCount[p.human]!++;
    observed += (p.judge - p.human) ** 2;
  }
  let expected = 0;
  for (let i = 0; i < CATEGORIES; i++)
    for (let j = 0; j < CATEGORIES; j++) expected += ((judgeCount[i]! * humanCount[j]!) / n) * (i - j) ** 2;
  if (expected < 1e-12) return null;
  return 1 - observed / expected;
}

/**
 * The 95% percentile interval of `stat` over BOOTSTRAP_RESAMPLES resamples of the pairs (with
 * replacement, seeded PRNG). Resamples where the statistic is undefined (every pair drawn of one
 * class) are left out; the percentiles interpolate linearly (numpy's default).
 */
export function bootstrapInterval<T>(
  pairs: readonly T[],
  stat: (sample: readonly T[]) => number | null,
  resamples = BOOTSTRAP_RESAMPLES,
  seed = BOOTSTRAP_SEED,
): { low: number; high: number } | null {
  const n = pairs.length;
  if (n === 0) return null;
  const rand = mulberry32(seed);
  const values: number[] = [];
  const sample = new Array<T>(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) sample[i] = pairs[Math.floor(rand() * n)]!;
    const v = stat(sample);
    if (v !== null) values.push(v);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return { low: quantile(values, 0.025), high: quantile(values, 0.975) };
}

/** Linear-interpolation quantile of sorted values (numpy's default, "type 7"). */
export function quantile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

const ratio = (num: number, den: number) => (den === 0 ? null : num / den);

/** Checklist items: agreement, κ with its interval, TPR, TNR and the two disagreement cells. */
export function binaryAgreement(pairs: readonly BinaryPair[]): BinaryAgreement {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const p of pairs) {
    if (p.judge && p.human) tp++;
    else if (p.judge) fp++;
    else if (p.human) fn++;
    else tn++;
  }
  const n = pairs.length;
  const { kappa, kappa_low, kappa_high, kappa_note } = kappaWithInterval(pairs, cohenKappa);
  return {
    n,
    agreement: ratio(tp + tn, n),
    kappa,
    kappa_low,
    kappa_high,
    tpr: ratio(tp, tp + fn),
    tnr: ratio(tn, tn + fp),
    judge_yes_human_no: fp,
    judge_no_human_yes: fn,
    ...(kappa_note ? { kappa_note } : {}),
  };
}

/**
 * 0-10 ranges: exact agreement, quadratic-weighted κ (also in `kappa`, the figure a floor reads)
 * with its interval, and the mean absolute error in points. TPR and TNR are null (no yes or no);
 * the two disagreement counts are the pairs where the judge scored higher, and lower.
 */
export function rangeAgreement(pairs: readonly ScorePair[]): RangeAgreement {
  let exact = 0;
  let higher = 0;
  let lower = 0;
  let absolute = 0;
  for (const p of pairs) {
    if (p.judge === p.human) exact++;
    else if (p.judge > p.human) higher++;
    else lower++;
    absolute += Math.abs(p.judge - p.human);
  }
  const n = pairs.length;
  const k = kappaWithInterval(pairs, weightedKappa);
  return {
    n,
    agreement: ratio(exact, n),
    kappa: k.kappa,
    kappa_low: k.kappa_low,
    kappa_high: k.kappa_high,
    tpr: null,
    tnr: null,
    judge_yes_human_no: higher,
    judge_no_human_yes: lower,
    ...(k.kappa_note ? { kappa_note: k.kappa_note } : {}),
    weighted_kappa: k.kappa,
    mae: ratio(absolute, n),
  };
}

function kappaWithInterval<T>(
  pairs: readonly T[],
  stat: (sample: readonly T[]) => number | null,
): Pick<BinaryAgreement, 'kappa' | 'kappa_low' | 'kappa_high' | 'kappa_note'> {
  const none = { kappa: null, kappa_low: null, kappa_high: null };
  if (pairs.length < MIN_LABELS_FOR_KAPPA)
    return {
      ...none,
      kappa_note: `${pairs.length} label${pairs.length === 1 ? '' : 's'}; κ needs at least ${MIN_LABELS_FOR_KAPPA}`,
    };
  const kappa = stat(pairs);
  if (kappa === null)
    return {
      ...none,
      kappa_note: 'κ is undefined: judge and people each used one and the same answer throughout',
    };
  const ci = bootstrapInterval(pairs, stat);
  return { kappa, kappa_low: ci?.low ?? null, kappa_high: ci?.high ?? null };
}
