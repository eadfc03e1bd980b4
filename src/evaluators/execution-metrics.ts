import { type ExecutionMetricsConfig } from '../suite/types.js';
import { usd } from './cost.js';
import { type Score, scored, unavailable } from './score.js';
import { type ExecutionTrace } from './trace.js';

/** Tools AgentV counts as exploration (read-only) for the exploration ratio. */
const EXPLORATION_TOOLS = [
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
  const toolCalls = trace.toolCalls.length;
  const tokens = trace.tokenUsage ? trace.tokenUsage.input + trace.tokenUsage.output : null;
  const ms = (n: number) => `${n}ms`;
  const limits = [
    { key: 'tool_calls', what: 'Tool calls', max: t.maxToolCalls, value: toolCalls, show: String, none: '' },
    {
      key: 'llm_calls',
      what: 'LLM calls',
      max: t.maxLlmCalls,
      value: trace.llmCallCount,
      show: String,
      none: 'LLM call count data not available',
    },
    {
      key: 'tokens',
      what: 'Total tokens',
      max: t.maxTokens,
      value: tokens,
      show: String,
      none: 'Token usage data not available',
    },
    {
      key: 'cost',
      what: 'Cost',
      max: t.maxCostUsd,
      value: trace.costUsd,
      show: usd,
      none: 'Cost data not available',
    },
    {
      key: 'duration',
      what: 'Duration',
      max: t.maxDurationMs,
      value: trace.durationMs,
      show: ms,
      none: 'Duration data not available',
    },
  ];
  for (const l of limits) {
    if (l.max === null) continue;
    if (l.value === null) {
      misses.push(l.none);
      continue;
    }
    actual.push(`${l.key}=${l.show(l.value)}`);
    const ok = l.value <= l.max;
    (ok ? hits : misses).push(`${l.what} ${l.show(l.value)} ${ok ? '<=' : '>'} ${l.show(l.max)} max`);
  }
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
