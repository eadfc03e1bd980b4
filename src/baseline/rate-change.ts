import { logFactorial } from '../evaluators/pass-rate.js';

/** A case's answers on one side of a comparison: how many passed, of how many. */
export interface PassCount {
  passed: number;
  answers: number;
}

/**
 * A side's passing answers: from its repeats and pass rate, or its one answer's verdict (a case
 * judged once is one answer, passing when its verdict is `pass`).
 */
export function passCountOf(g: {
  verdict: string;
  repeats?: number | null;
  pass_rate?: number | null;
}): PassCount {
  if (typeof g.repeats === 'number' && g.repeats > 0 && typeof g.pass_rate === 'number')
    return { passed: Math.round(g.pass_rate * g.repeats), answers: g.repeats };
  return { passed: g.verdict === 'pass' ? 1 : 0, answers: 1 };
}

/** The level at which two pass rates are said to differ. */
const RATE_CHANGE_ALPHA = 0.05;

/** Relative slack when comparing table probabilities, as R's fisher.test uses (floating noise). */
const RELATIVE_TOLERANCE = 1 + 1e-7;

const logChoose = (n: number, k: number) => logFactorial(n) - logFactorial(k) - logFactorial(n - k);

/**
 * Fisher's exact test, two-sided, on the 2×2 table of passing and failing answers of two runs:
 * the chance, with the margins fixed and equal rates, of a table at most as likely as the one seen.
 */
export function fisherExactP(a: PassCount, b: PassCount): number {
  const passed = a.passed + b.passed;
  const total = a.answers + b.answers;
  if (a.answers === 0 || b.answers === 0 || passed === 0 || passed === total) return 1;
  const logDenominator = logChoose(total, a.answers);
  const prob = (x: number) =>
    Math.exp(logChoose(passed, x) + logChoose(total - passed, a.answers - x) - logDenominator);
  const seen = prob(a.passed);
  let p = 0;
  const from = Math.max(0, a.answers - (total - passed));
  const to = Math.min(a.answers, passed);
  for (let x = from; x <= to; x++) {
    const px = prob(x);
    if (px <= seen * RELATIVE_TOLERANCE) p += px;
  }
  return Math.min(1, p);
}

/**
 * How a case's pass rate moved against its baseline: `regressed` or `improved` only when Fisher's
 * exact test says the two rates differ at the 5% level, else `same`.
 */
export function rateChange(base: PassCount, head: PassCount): 'regressed' | 'improved' | 'same' {
  if (base.answers === 0 || head.answers === 0) return 'same';
  if (fisherExactP(base, head) >= RATE_CHANGE_ALPHA) return 'same';
  return head.passed / head.answers < base.passed / base.answers ? 'regressed' : 'improved';
}
