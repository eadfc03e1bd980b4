/**
 * The statistics of the pull request's effect (docs/effect.md): a
 * cluster-robust t interval for the mean paired difference, with a variance floor of one
 * pseudo-flip so that it keeps its coverage where an interval from the observed spread alone
 * collapses (0/1 outcomes where nothing flipped), and the drop it could detect.
 */

/** Named in every effect row, so a reader can look the method up. */
export const EFFECT_METHOD = 'cluster-robust t, Agresti-Min floor';

/** Two-sided 95%: the t quantile at 0.975, and at 0.8 for 80% power; exact to 3 decimals for df ≤ 30. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
const T80 = [
  1.376, 1.061, 0.978, 0.941, 0.92, 0.906, 0.896, 0.889, 0.883, 0.879, 0.876, 0.873, 0.87, 0.868, 0.866,
  0.865, 0.863, 0.862, 0.861, 0.86, 0.859, 0.858, 0.858, 0.857, 0.856, 0.856, 0.855, 0.855, 0.854, 0.854,
];
const Z975 = 1.959964;
const Z80 = 0.841621;

/** Cornish-Fisher expansion of a t quantile around the normal one: within 1e-4 past df 30. */
function cornishFisher(z: number, df: number): number {
  const z3 = z ** 3;
  const z5 = z ** 5;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2);
}

export function tQuantile(p: 0.975 | 0.8, df: number): number {
  const table = p === 0.975 ? T975 : T80;
  if (df <= table.length) return table[Math.max(1, Math.floor(df)) - 1]!;
  return cornishFisher(p === 0.975 ? Z975 : Z80, df);
}

/** The mean paired difference and its standard error, with clusters counted. */
export interface Spread {
  n: number;
  clusters: number;
  mean: number;
  /** null with fewer than two clusters: nothing to estimate a spread from. */
  se: number | null;
  df: number;
}

/**
 * The mean of `diffs` and its cluster-robust standard error (CR1: cluster totals around the mean,
 * scaled by G/(G−1)), plus a floor: the squared deviations gain one flip's worth, half a case up
 * and half down, as Agresti and Min (2005) add half a case to each discordant cell of a paired
 * 2×2 table, so that a suite where nothing flipped still has an interval. Without clusters
 * (`clusterOf[i] = i`) it is the paired t interval's standard error with that floor added.
 * `clusterOf` holds indexes 0..clusters−1 (numbers, so that a simulation of 2,000 cases is cheap).
 */
export function pairedSpread(
  diffs: ArrayLike<number>,
  clusterOf: ArrayLike<number>,
  clusters: number,
): Spread {
  const n = diffs.length;
  const sums = new Float64Array(clusters);
  const sizes = new Float64Array(clusters);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const d = diffs[i]!;
    sum += d;
    sums[clusterOf[i]!]! += d;
    sizes[clusterOf[i]!]!++;
  }
  const mean = n > 0 ? sum / n : 0;
  let g = 0;
  let ss = 0;
  for (let c = 0; c < clusters; c++) {
    if (sizes[c] === 0) continue;
    g++;
    ss += (sums[c]! - sizes[c]! * mean) ** 2;
  }
  if (g < 2) return { n, clusters: g, mean, se: null, df: 0 };
  const se = Math.sqrt((ss * g) / (g - 1) + 1) / n;
  return { n, clusters: g, mean, se, df: g - 1 };
}

export type EffectVerdict = 'improved' | 'non-inferior' | 'regressed' | 'inconclusive';

/**
 * The verdict rule, exactly as docs/effect.md states it: non-inferior when the low end is at least
 * minus the margin (improved when it is above 0); regressed when the high end is below 0 and the
 * low end below minus the margin; otherwise inconclusive.
 */
export function effectVerdict(low: number, high: number, margin: number): EffectVerdict {
  if (low >= -margin) return low > 0 ? 'improved' : 'non-inferior';
  if (high < 0) return 'regressed';
  return 'inconclusive';
}

/** The 95% interval of the mean difference, within the range a difference of 0..1 values can take. */
export function interval(s: Spread): { low: number; high: number } {
  if (s.se === null) return { low: -1, high: 1 };
  const h = tQuantile(0.975, s.df) * s.se;
  return { low: Math.max(-1, s.mean - h), high: Math.min(1, s.mean + h) };
}

/**
 * The smallest true drop that reads `regressed` in 80% of runs at this spread: the estimate must
 * fall below both minus the half-width (the high end below 0) and the half-width minus the
 * margin (the low end below minus the margin), with 80% power on top. Null when no drop up to
 * `largest` (what the base can lose) would do, or there is no spread to judge by.
 */
export function detectableDrop(s: Spread, margin: number, largest: number): number | null {
  if (s.se === null) return null;
  const h = tQuantile(0.975, s.df) * s.se;
  const mde = Math.max(h, margin - h) + tQuantile(0.8, s.df) * s.se;
  return mde <= largest ? mde : null;
}
