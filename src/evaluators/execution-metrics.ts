import { type ExecutionMetricsConfig } from '../suite/types.js';
import { usd } from './cost.js';
import { type Score, scored, unavailable } from './score.js';
import { type ExecutionTrace } from './trace.js';

/** Tools AgentV counts as exploration (read-only) for the exploration ratio. */
export const EXPLORATION_TOOLS = [
  'read',
  'grep',
  'glob',
  'search',
  'list',
  'Read',
  'Grep',
  'Glob',
  'WebSearch',
  'WebFetch',
];

type Thresholds = Omit<ExecutionMetricsConfig, 'type' | 'name' | 'weight' | 'pos'>;

/**
 * AgentV's `execution_metrics`: every threshold given is one check (`<=` passes; the
 * exploration ratio within `exploration_tolerance` of its target); a metric the target did not
 * report is a miss. Score = checks passed / checks made.
 */
export function scoreExecutionMetrics(t: Thresholds, trace: ExecutionTrace | null): Score {
  if (!trace)
    return unavailable(
      'No trace summary available',
      'Execution metrics not available - no trace summary provided',
    );
  const hits: string[] = [];
  const misses: string[] = [];
  const actual: string[] = [];
  const limit = (
    max: number | null,
    value: number | null,
    missing: string,
    say: (v: number, op: '<=' | '>') => string,
    shown: (v: number) => string,
  ) => {
    if (max === null) return;
    if (value === null) {
      misses.push(missing);
      return;
    }
    actual.push(shown(value));
    (value <= max ? hits : misses).push(say(value, value <= max ? '<=' : '>'));
  };
  const toolCalls = trace.toolCalls.length;
  limit(
    t.maxToolCalls,
    toolCalls,
    '',
    (v, op) => `Tool calls ${v} ${op} ${t.maxToolCalls} max`,
    (v) => `tool_calls=${v}`,
  );
  limit(
    t.maxLlmCalls,
    trace.llmCallCount,
    'LLM call count data not available',
    (v, op) => `LLM calls ${v} ${op} ${t.maxLlmCalls} max`,
    (v) => `llm_calls=${v}`,
  );
  const tokens = trace.tokenUsage ? trace.tokenUsage.input + trace.tokenUsage.output : null;
  limit(
    t.maxTokens,
    tokens,
    'Token usage data not available',
    (v, op) => `Total tokens ${v} ${op} ${t.maxTokens} max`,
    (v) => `tokens=${v}`,
  );
  limit(
    t.maxCostUsd,
    trace.costUsd,
    'Cost data not available',
    (v, op) => `Cost ${usd(v)} ${op} ${usd(t.maxCostUsd!)} max`,
    (v) => `cost=${usd(v)}`,
  );
  limit(
    t.maxDurationMs,
    trace.durationMs,
    'Duration data not available',
    (v, op) => `Duration ${v}ms ${op} ${t.maxDurationMs}ms max`,
    (v) => `duration=${v}ms`,
  );
  if (t.targetExplorationRatio !== null) {
    const target = t.targetExplorationRatio;
    if (toolCalls === 0) misses.push('Exploration ratio not available (no tool calls)');
    else {
      const explored = EXPLORATION_TOOLS.reduce((s, name) => s + (trace.toolCallsByName[name] ?? 0), 0);
      const ratio = explored / toolCalls;
      const diff = Math.abs(ratio - target);
      actual.push(`exploration_ratio=${ratio.toFixed(2)}`);
      if (diff <= t.explorationTolerance)
        hits.push(`Exploration ratio ${ratio.toFixed(2)} within tolerance of target ${target}`);
      else
        misses.push(
          `Exploration ratio ${ratio.toFixed(2)} outside tolerance of target ${target} (diff: ${diff.toFixed(2)}, tolerance: ${t.explorationTolerance})`,
        );
    }
  }
  const checks = hits.length + misses.length;
  return scored(
    checks > 0 ? hits.length / checks : 0,
    hits,
    misses,
    actual.length > 0 ? `execution_metrics ${actual.join(', ')}` : 'No metrics evaluated',
  );
}
