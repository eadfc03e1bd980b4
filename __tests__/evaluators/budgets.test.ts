import { scoreCost } from '../../src/evaluators/cost.js';
import { scoreExecutionMetrics } from '../../src/evaluators/execution-metrics.js';
import { scoreLatency } from '../../src/evaluators/latency.js';
import { scoreTokenUsage } from '../../src/evaluators/token-usage.js';
import { traceOf, type ExecutionTrace } from '../../src/evaluators/trace.js';

test('latency: equal to the threshold passes, one millisecond more fails, no duration scores 0', () => {
  expect(scoreLatency({ thresholdMs: 2000 }, 2000)).toEqual({
    score: 1,
    verdict: 'pass',
    hits: ['Duration 2000ms <= 2000ms threshold'],
    misses: [],
    reasoning: 'Execution took 2000ms (threshold: 2000ms)',
  });
  expect(scoreLatency({ thresholdMs: 2000 }, 2001)).toMatchObject({
    score: 0,
    verdict: 'fail',
    misses: ['Duration 2001ms > 2000ms threshold'],
  });
  expect(scoreLatency({ thresholdMs: 2000 }, null)).toMatchObject({
    score: 0,
    misses: ['No duration data available in trace'],
  });
});

test('cost: equal to the budget passes, above fails, no cost scores 0', () => {
  expect(scoreCost({ budgetUsd: 0.1 }, 0.1)).toMatchObject({
    score: 1,
    hits: ['Cost $0.1000 <= $0.1000 budget'],
  });
  expect(scoreCost({ budgetUsd: 0.1 }, 0.10001)).toMatchObject({
    score: 0,
    misses: ['Cost $0.1000 > $0.1000 budget'],
  });
  expect(scoreCost({ budgetUsd: 0.1 }, null)).toMatchObject({
    score: 0,
    misses: ['No cost data available in trace'],
  });
});

test('token_usage: every limit given must hold (equal passes); the total counts cached tokens', () => {
  const usage = { input: 800, output: 200, cached: 24 };
  expect(scoreTokenUsage({ maxTotal: 1024, maxInput: 800, maxOutput: null }, usage)).toEqual({
    score: 1,
    verdict: 'pass',
    hits: ['Input tokens 800 <= 800', 'Total tokens 1024 <= 1024'],
    misses: [],
    reasoning: 'token_usage input=800, output=200, cached=24, total=1024',
  });
  expect(scoreTokenUsage({ maxTotal: 1023, maxInput: null, maxOutput: 500 }, usage)).toMatchObject({
    score: 0,
    hits: ['Output tokens 200 <= 500'],
    misses: ['Total tokens 1024 > 1023'],
  });
  expect(scoreTokenUsage({ maxTotal: 10, maxInput: null, maxOutput: null }, null).misses).toEqual([
    'No token usage data available in trace',
  ]);
});

const trace = (over: Partial<ExecutionTrace> = {}): ExecutionTrace => ({
  toolCalls: [
    { name: 'Read', args: undefined, durationMs: undefined },
    { name: 'Read', args: undefined, durationMs: undefined },
    { name: 'Edit', args: undefined, durationMs: undefined },
  ],
  toolCallsByName: { Read: 2, Edit: 1 },
  llmCallCount: 2,
  tokenUsage: { input: 1500, output: 500 },
  costUsd: 0.05,
  durationMs: 10_000,
  ...over,
});
const none = {
  maxToolCalls: null,
  maxLlmCalls: null,
  maxTokens: null,
  maxCostUsd: null,
  maxDurationMs: null,
  targetExplorationRatio: null,
  explorationTolerance: 0.2,
};

test('execution_metrics: each threshold is one check, equal passes; score = checks passed / checks made', () => {
  const s = scoreExecutionMetrics(
    { ...none, maxToolCalls: 3, maxLlmCalls: 1, maxTokens: 2000, maxCostUsd: 0.05, maxDurationMs: 9999 },
    trace(),
  );
  expect(s.hits).toEqual([
    'Tool calls 3 <= 3 max',
    'Total tokens 2000 <= 2000 max',
    'Cost $0.0500 <= $0.0500 max',
  ]);
  expect(s.misses).toEqual(['LLM calls 2 > 1 max', 'Duration 10000ms > 9999ms max']);
  expect(s.score).toBeCloseTo(3 / 5, 12);
  expect(s.verdict).toBe('borderline');
  expect(s.reasoning).toBe(
    'execution_metrics tool_calls=3, llm_calls=2, tokens=2000, cost=$0.0500, duration=10000ms',
  );
});

test('execution_metrics: exploration ratio within the tolerance of its target; unreported metrics are misses', () => {
  // Read is an exploration tool: 2 of 3 calls = 0.67.
  expect(scoreExecutionMetrics({ ...none, targetExplorationRatio: 0.6 }, trace()).hits).toEqual([
    'Exploration ratio 0.67 within tolerance of target 0.6',
  ]);
  expect(
    scoreExecutionMetrics({ ...none, targetExplorationRatio: 0.2, explorationTolerance: 0.1 }, trace())
      .misses,
  ).toEqual(['Exploration ratio 0.67 outside tolerance of target 0.2 (diff: 0.47, tolerance: 0.1)']);
  const bare = trace({
    tokenUsage: null,
    costUsd: null,
    durationMs: null,
    toolCalls: [],
    toolCallsByName: {},
  });
  expect(
    scoreExecutionMetrics(
      { ...none, maxTokens: 1, maxCostUsd: 1, maxDurationMs: 1, targetExplorationRatio: 0.5 },
      bare,
    ),
  ).toMatchObject({
    score: 0,
    misses: [
      'Token usage data not available',
      'Cost data not available',
      'Duration data not available',
      'Exploration ratio not available (no tool calls)',
    ],
  });
  expect(scoreExecutionMetrics({ ...none, maxToolCalls: 1 }, null).misses).toEqual([
    'No trace summary available',
  ]);
});

test('the trace of an answer: tool calls from output messages, metrics as the target reported them', () => {
  const t = traceOf({
    text: 'done',
    outputMessages: [
      {
        role: 'assistant',
        tool_calls: [{ tool: 'search', input: { q: 'x' }, duration_ms: 40 }, { input: {} }],
      },
      { role: 'assistant', content: 'done' },
    ],
    durationMs: 120,
    tokenUsage: { input: 10, output: 5 },
    costUsd: null,
  });
  expect(t).toEqual({
    toolCalls: [{ name: 'search', args: { q: 'x' }, durationMs: 40 }],
    toolCallsByName: { search: 1 },
    llmCallCount: 2,
    tokenUsage: { input: 10, output: 5 },
    costUsd: null,
    durationMs: 120,
  });
  // A recorded answer or a mock has no trace at all.
  expect(
    traceOf({ text: 'x', outputMessages: null, durationMs: null, tokenUsage: null, costUsd: null }),
  ).toBeNull();
});
