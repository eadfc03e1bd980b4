import { type LatencyConfig } from '../suite/types.js';
import { type Score, scored, unavailable } from './score.js';

/** AgentV's `latency`: the target call's duration against `threshold` ms; equal passes. */
export function scoreLatency(config: Pick<LatencyConfig, 'thresholdMs'>, durationMs: number | null): Score {
  const threshold = config.thresholdMs;
  if (durationMs === null)
    return unavailable('No duration data available in trace', 'Execution duration not reported by provider');
  const ok = durationMs <= threshold;
  return scored(
    ok ? 1 : 0,
    ok ? [`Duration ${durationMs}ms <= ${threshold}ms threshold`] : [],
    ok ? [] : [`Duration ${durationMs}ms > ${threshold}ms threshold`],
    `Execution took ${durationMs}ms (threshold: ${threshold}ms)`,
  );
}
