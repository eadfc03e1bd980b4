/**
 * Repeats (README "Repeats"): how many of a case's answers must pass before the evidence shows its
 * pass rate is at least `min-case-pass-rate`, or below it. Pure statistics, exact for small counts:
 * one-sided exact binomial (Clopper–Pearson) bounds at 95% each, checked after every answer.
 */

import { MAX_REPEATS, type RepeatRule, type RepeatSetting } from '../core/repeat-setting.js';

/** One-sided error of each bound: the two bounds together are a 90% two-sided exact interval. */
const RATE_ALPHA = 0.05;

export type RateVerdict = 'pass' | 'fail' | 'inconclusive';

/**
 * The answers of every case walk the same small grid (k of n ≤ 20): each point is computed once
 * per process. Bounded, as a setting from a file could ask for other rates.
 */
const memo = new Map<string, unknown>();
function remembered<T>(key: string, compute: () => T): T {
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  if (memo.size < 100_000) memo.set(key, value);
  return value;
}

/** log(n!) for the counts a case or a comparison can reach (exact sums: n stays small). */
const logFactorials: number[] = [0];
export function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]!;
}

/** P(X = k) for X ~ Binomial(n, p). */
function binomialPmf(k: number, n: number, p: number): number {
  if (p <= 0) return k === 0 ? 1 : 0;
  if (p >= 1) return k === n ? 1 : 0;
  const logC = logFactorial(n) - logFactorial(k) - logFactorial(n - k);
  return Math.exp(logC + k * Math.log(p) + (n - k) * Math.log1p(-p));
}

/** P(X ≤ k): the chance of at most k passing answers of n at rate p. */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let sum = 0;
  for (let i = 0; i <= k; i++) sum += binomialPmf(i, n, p);
  return Math.min(1, sum);
}

/** P(X ≥ k): the chance of at least k passing answers of n at rate p. */
function binomialSf(k: number, n: number, p: number): number {
  return k <= 0 ? 1 : 1 - binomialCdf(k - 1, n, p);
}

/** The p in [0, 1] where the decreasing function `f` crosses `target` (bisection to 1e-12). */
function solveDecreasing(f: (p: number) => number, target: number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Exact (Clopper–Pearson) bounds for k passing answers of n, each one-sided at `alpha`: the lowest
 * rate under which k or more passes are still likely (P(X ≥ k) > alpha), and the highest under
 * which k or fewer are (P(X ≤ k) > alpha).
 */
export function passRateBounds(k: number, n: number, alpha = RATE_ALPHA): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 1 };
  return remembered(`b${k}/${n}/${alpha}`, () => bounds(k, n, alpha));
}

function bounds(k: number, n: number, alpha: number): { low: number; high: number } {
  // P(X ≥ k) rises with p, so its complement P(X ≤ k-1) falls: solve that one.
  const low = k === 0 ? 0 : solveDecreasing((p) => binomialCdf(k - 1, n, p), 1 - alpha);
  const high = k === n ? 1 : solveDecreasing((p) => binomialCdf(k, n, p), alpha);
  return { low, high };
}

/**
 * The case's verdict from k passing answers of n: `pass` when the evidence shows the rate is at
 * least `minRate` (its lower bound reaches it: k or more passes would be unlikely, P ≤ alpha, were
 * the rate just `minRate`), `fail` when it shows the rate is below (its upper bound is under it),
 * else `inconclusive`. Decided on the tail probabilities themselves, not on the rounded bounds.
 */
export function rateVerdict(k: number, n: number, minRate: number, alpha = RATE_ALPHA): RateVerdict {
  if (n <= 0) return 'inconclusive';
  return remembered(`v${k}/${n}/${minRate}/${alpha}`, () => tailVerdict(k, n, minRate, alpha));
}

function tailVerdict(k: number, n: number, minRate: number, alpha: number): RateVerdict {
  if (binomialSf(k, n, minRate) <= alpha) return 'pass';
  if (binomialCdf(k, n, minRate) <= alpha) return 'fail';
  return 'inconclusive';
}

/**
 * A repeated case's verdict from k passing answers of n (the README's repeats). A fixed count reads the
 * observed rate against `minRate` (pass at or above it, else fail), as promptfoo's `repeat` does:
 * a user who asks for 3 answers and gets 3 passes reads `pass 3/3`, the interval beside it saying
 * how sure that is. `auto` asks the evidence (`rateVerdict`), so it may stay inconclusive. No
 * passing answer is a fail under either.
 */
export function caseVerdict(k: number, n: number, rule: RepeatRule): RateVerdict {
  if (n > 0 && k === 0) return 'fail';
  if (rule.setting === 'auto') return rateVerdict(k, n, rule.minRate);
  // k/n and the rate as written are both correctly rounded: a tolerance keeps 7/10 at 0.7.
  return n > 0 && k / n >= rule.minRate - 1e-12 ? 'pass' : 'fail';
}

/**
 * The fewest answers whose interval can exclude `minRate` both ways (all passing shows the rate at
 * least `minRate`, all failing shows it below): P(all pass) = minRate^n and P(all fail) =
 * (1 - minRate)^n at or under alpha. Infinity for a rate of 0 or 1, which no count can exclude.
 */
export function answersToExclude(minRate: number, alpha = RATE_ALPHA): number {
  const need = (p: number) =>
    p <= 0 ? 1 : p >= 1 ? Infinity : Math.ceil(Math.log(alpha) / Math.log(p) - 1e-9);
  return Math.max(need(minRate), need(1 - minRate));
}

/**
 * Whether more answers could still decide the case within `max` answers: all of them passing
 * could reach `pass`, or all failing could reach `fail` (the bounds move monotonically, so the
 * extremes are the whole question).
 */
export function stillDecidable(k: number, n: number, minRate: number, max = MAX_REPEATS): boolean {
  for (let m = 1; n + m <= max; m++) {
    if (rateVerdict(k + m, n + m, minRate) === 'pass') return true;
    if (rateVerdict(k, n + m, minRate) === 'fail') return true;
  }
  return false;
}

/**
 * `auto`'s stopping rule after n answers, k of them passing: ask for another only while the case
 * is undecided and more answers (up to `max`) could still decide it.
 */
export function wantsAnotherAnswer(k: number, n: number, minRate: number, max = MAX_REPEATS): boolean {
  if (n >= max) return false;
  if (n === 0) return true;
  return rateVerdict(k, n, minRate) === 'inconclusive' && stillDecidable(k, n, minRate, max);
}

/** How many answers a setting asks for up front: a fixed count, or 1 for `auto`. */
export function firstAnswers(setting: RepeatSetting): number {
  return setting === 'auto' ? 1 : setting;
}
