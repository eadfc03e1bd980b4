import { type RunResults } from '../results.js';

/**
 * Stage 5, compare: the aggregated results against a baseline run (CONTRACTS §7), returning the
 * results with what changed. A run without a baseline comes back as it went in; so does every
 * run until baseline comparison is built here (the same stage serves a merged run).
 */
export function compareWithBaseline(results: RunResults, baseline: RunResults | null = null): RunResults {
  void baseline;
  return results;
}
