import { type CaseOutcome, type Change } from '../core/results.js';
import { EPSILON } from '../core/epsilon.js';
import { passCountOf, rateChange } from './rate-change.js';

/** One side of a comparison: what decides a case's change. */
export interface Graded {
  verdict: CaseOutcome;
  score: number;
  definition_hash?: string | null;
  /** Repeats: answers and pass rate (absent for a case judged on one answer). */
  repeats?: number | null;
  pass_rate?: number | null;
  /** Judge calibration: only advisory checks judged it (no evidence to compare). */
  advisory_only?: true;
  /** The case's answer (the HTML report shows the base's beside the head's). */
  answer?: string | null;
}

const failing = (v: CaseOutcome) => v === 'fail' || v === 'error';
/** Shown to pass, or borderline: an inconclusive case is neither passing nor failing. */
const passing = (v: CaseOutcome) => v === 'pass' || v === 'borderline';
const repeated = (g: Graded) => typeof g.repeats === 'number' && g.repeats > 1;

/**
 * The change of one case against its baseline, in the order of `CHANGES` (the README's table in
 * "Baseline: what this pull request changed"): the first row that applies wins. A hash missing
 * on either side (a file written before hashes existed) is not evidence of a redefinition, so
 * the case is compared.
 */
export function changeOf(base: Graded | undefined, head: Graded, margin: number): Change {
  if (!base) return 'new';
  if (base.definition_hash && head.definition_hash && base.definition_hash !== head.definition_hash)
    return 'redefined';
  // Only advisory checks judged the head: nothing that gates to blame. Only they judged the base:
  // the head's verdict has nothing to compare with, as for a case the base did not have.
  if (head.advisory_only) return 'same';
  if (base.advisory_only) return 'new';
  if (passing(base.verdict) && failing(head.verdict)) return 'broken';
  if (failing(base.verdict) && passing(head.verdict)) return 'fixed';
  // Repeats on either side: the pass rates decide, and only when they differ at the 5% level.
  if (repeated(base) || repeated(head)) return rateChange(passCountOf(base), passCountOf(head));
  // A drop of exactly the margin reads as `same` whichever way the float rounding fell.
  const delta = head.score - base.score;
  if (-delta > margin + EPSILON || (base.verdict === 'pass' && head.verdict === 'borderline'))
    return 'regressed';
  if (delta > margin + EPSILON || (base.verdict === 'borderline' && head.verdict === 'pass'))
    return 'improved';
  return 'same';
}

/** A case that failed (or errored) on both sides: shown as "still failing", never blamed on the PR. */
export function stillFailing(head: CaseOutcome, base: CaseOutcome | null, change: Change): boolean {
  return change === 'same' && base !== null && failing(base) && failing(head);
}
