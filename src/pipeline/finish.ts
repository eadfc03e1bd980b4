import { type Diagnostic } from '../core/diagnostics.js';
import { type Redactor } from '../exec/redact.js';
import { type RunResults } from '../core/results.js';
import { type RunStats } from './context.js';

/** What a run hands its adapter: the results, the diagnostics to annotate, and how it went. */
export interface RunOutcome {
  results: RunResults;
  diagnostics: Diagnostic[];
  redactor: Redactor;
  stats: RunStats;
}

/** What the action reports of a run, also when an internal error stopped it (no stats then). */
export type ReportedRun = Pick<RunOutcome, 'results' | 'redactor' | 'diagnostics'>;

/**
 * Stage 6, results: the compared results with how the judge endpoint behaved, as the outcome the
 * action and the CLI turn into their world. `judge_stats` only when something was executed.
 */
export function finishRun(
  results: RunResults,
  p: { diagnostics: Diagnostic[]; redactor: Redactor; stats: RunStats; executed: boolean },
): RunOutcome {
  if (p.executed)
    results.judge_stats = {
      http_calls: p.stats.judgeCalls,
      retries: p.stats.retries,
      repairs: p.stats.repairs,
      rate_limited: p.stats.rateLimited,
      timeouts: p.stats.timeouts,
      peak_in_flight: p.stats.peakInFlight,
    };
  return { results, diagnostics: p.diagnostics, redactor: p.redactor, stats: p.stats };
}
