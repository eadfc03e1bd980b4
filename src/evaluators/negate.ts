import { type EvaluatorResult } from '../core/results.js';
import { verdictForScore } from '../rubric/scoring.js';

/**
 * AgentV 5's `negate: true`: the score becomes 1 - score and what was a hit is now a miss. An
 * evaluator that errored stays an error (AgentV would count it 0 and negate it into a pass; an
 * error is never a pass here).
 */
export function negateResult(r: EvaluatorResult): EvaluatorResult {
  if (r.verdict === 'error') return r;
  const score = 1 - r.score;
  // A check that decided its own pass (an `llm-rubric`, a set with a threshold) swaps it, as AgentV 5 does.
  const ownPass = r.mode === 'rubric' || r.threshold !== undefined;
  const swapped = r.verdict === 'pass' ? 'fail' : 'pass';
  return {
    ...r,
    score,
    verdict: r.gating_violations.length > 0 ? 'fail' : ownPass ? swapped : verdictForScore(score),
    hits: (r.misses ?? []).map((m) => `not expected and absent: ${m}`),
    misses: (r.hits ?? []).map((h) => `negated: ${h}`),
    negated: true,
  };
}
