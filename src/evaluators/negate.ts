import { type EvaluatorResult } from '../core/results.js';
import { verdictForScore } from '../rubric/scoring.js';

/**
 * AgentV 5's `negate: true`: the score becomes 1 - score and what was a hit is now a miss. An
 * evaluator that errored stays an error (AgentV would count it 0 and negate it into a pass; an
 * error is never a pass here).
 */
export function negateResult(r: EvaluatorResult): EvaluatorResult {
  if (r.verdict === 'error') return r;
  return {
    ...r,
    ...negatedOutcome(r),
    hits: (r.misses ?? []).map((m) => `not expected and absent: ${m}`),
    misses: (r.hits ?? []).map((h) => `negated: ${h}`),
    negated: true,
  };
}

/**
 * The score and verdict a negated check shows, from its own (not negated) outcome; the check is
 * scored again by this rule when advisory checks are left out of it.
 */
export function negatedOutcome(
  own: Pick<EvaluatorResult, 'score' | 'verdict' | 'gating_violations' | 'mode' | 'threshold'>,
): Pick<EvaluatorResult, 'score' | 'verdict'> {
  const score = 1 - own.score;
  // A check that decided its own pass (an `llm-rubric`, a set with a threshold) swaps it, as AgentV 5 does.
  const ownPass = own.mode === 'rubric' || own.threshold !== undefined;
  const swapped = own.verdict === 'pass' ? 'fail' : 'pass';
  return {
    score,
    verdict: own.gating_violations.length > 0 ? 'fail' : ownPass ? swapped : verdictForScore(score),
  };
}
