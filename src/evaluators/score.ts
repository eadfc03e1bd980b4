import { type Verdict } from '../core/results.js';
import { verdictForScore } from '../rubric/scoring.js';

/** What a deterministic evaluator decides: a pure value, named and weighted by the caller. */
export interface Score {
  score: number;
  verdict: Verdict;
  hits: string[];
  misses: string[];
  reasoning: string | null;
}

export function scored(
  score: number,
  hits: string[],
  misses: string[],
  reasoning: string | null = null,
): Score {
  return { score, verdict: verdictForScore(score), hits, misses, reasoning };
}

/** A check that could not be made (no trace, no metric): 0, with the reason as the miss. */
export function unavailable(miss: string, reasoning: string | null = null): Score {
  return { score: 0, verdict: 'fail', hits: [], misses: [miss], reasoning };
}
