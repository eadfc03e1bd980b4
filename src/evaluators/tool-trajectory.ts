import { type ToolCallExpectation, type ToolTrajectoryConfig } from '../suite/types.js';
import { deepEqual } from './deep-equal.js';
import { type Score, scored, unavailable } from './score.js';
import { type ExecutionTrace, type ToolCall } from './trace.js';

type Trajectory = Pick<ToolTrajectoryConfig, 'mode' | 'minimums' | 'expected'>;

/**
 * AgentV's `tool_trajectory` over the answer's tool calls: `any_order` counts calls against
 * `minimums`; `in_order` finds the expected calls in sequence, gaps allowed; `exact` compares
 * position by position and misses a different number of calls. A `max_duration_ms` on an
 * expected call is one more aspect (neutral when the call reported no duration).
 */
export function scoreToolTrajectory(config: Trajectory, trace: ExecutionTrace | null): Score {
  if (!trace) return unavailable('No trace available for evaluation');
  switch (config.mode) {
    case 'any_order':
      return anyOrder(config.minimums, trace.toolCallsByName);
    case 'in_order':
      return sequence(config.expected, (tally) => inOrder(config.expected, trace.toolCalls, tally));
    case 'exact':
      return sequence(config.expected, (tally) => exact(config.expected, trace.toolCalls, tally));
  }
}

function anyOrder(minimums: Record<string, number>, byName: Record<string, number>): Score {
  const tools = Object.keys(minimums);
  if (tools.length === 0) return scored(1, ['No tool requirements specified'], []);
  const hits: string[] = [];
  const misses: string[] = [];
  for (const tool of tools) {
    const required = minimums[tool]!;
    const actual = byName[tool] ?? 0;
    (actual >= required ? hits : misses).push(`${tool}: called ${actual} times (required ≥${required})`);
  }
  return scored(hits.length / tools.length, hits, misses);
}

/** Hits and misses of one sequence check, with the latency aspects counted apart. */
interface Tally {
  hits: string[];
  misses: string[];
  sequenceHits: number;
  latencyHits: number;
  latencySkips: number;
}

function sequence(expected: readonly ToolCallExpectation[], walk: (t: Tally) => void): Score {
  if (expected.length === 0) return scored(1, ['No tool sequence specified'], []);
  const tally: Tally = { hits: [], misses: [], sequenceHits: 0, latencyHits: 0, latencySkips: 0 };
  walk(tally);
  const latencyAspects = expected.filter((e) => e.maxDurationMs !== null).length - tally.latencySkips;
  const total = expected.length + latencyAspects;
  const score = total > 0 ? (tally.sequenceHits + tally.latencyHits) / total : 1;
  const skipped =
    tally.latencySkips > 0 ? `${tally.latencySkips} latency assertion(s) skipped: no duration data` : null;
  return scored(score, tally.hits, tally.misses, skipped);
}

function argsMatch(expected: ToolCallExpectation['args'], actual: ToolCall['args']): boolean {
  if (expected === null || expected === 'any') return true;
  if (actual === undefined) return false;
  return Object.keys(expected).every((k) => Object.hasOwn(actual, k) && deepEqual(expected[k], actual[k]));
}

function checkLatency(e: ToolCallExpectation, call: ToolCall, tally: Tally): void {
  if (e.maxDurationMs === null) return;
  if (call.durationMs === undefined) {
    tally.latencySkips++;
    return;
  }
  if (call.durationMs <= e.maxDurationMs) {
    tally.hits.push(`${e.tool} completed in ${call.durationMs}ms (max: ${e.maxDurationMs}ms)`);
    tally.latencyHits++;
  } else tally.misses.push(`${e.tool} took ${call.durationMs}ms (max: ${e.maxDurationMs}ms)`);
}

function inOrder(expected: readonly ToolCallExpectation[], calls: readonly ToolCall[], tally: Tally): void {
  let next = 0;
  expected.forEach((e, i) => {
    // The first later call with the tool's name decides: matching args is a hit, other args a miss.
    while (next < calls.length && calls[next]!.name !== e.tool) next++;
    const call = calls[next];
    if (!call) {
      tally.misses.push(`Expected ${e.tool} at position ${i}, not found in remaining trace`);
      return;
    }
    if (!argsMatch(e.args, call.args)) {
      tally.misses.push(`Expected ${e.tool} at position ${i}: tool found at ${next} but args mismatch`);
      next++;
      return;
    }
    tally.hits.push(`Found ${e.tool} at position ${next}`);
    tally.sequenceHits++;
    next++;
    checkLatency(e, call, tally);
  });
}

function exact(expected: readonly ToolCallExpectation[], calls: readonly ToolCall[], tally: Tally): void {
  if (calls.length !== expected.length)
    tally.misses.push(`Expected ${expected.length} tool calls, got ${calls.length}`);
  expected.forEach((e, i) => {
    const call = calls[i];
    if (!call) tally.misses.push(`Position ${i}: expected ${e.tool}, got nothing`);
    else if (call.name !== e.tool) tally.misses.push(`Position ${i}: expected ${e.tool}, got ${call.name}`);
    else if (!argsMatch(e.args, call.args)) tally.misses.push(`Position ${i}: ${e.tool} args mismatch`);
    else {
      tally.hits.push(`Position ${i}: ${e.tool}`);
      tally.sequenceHits++;
      checkLatency(e, call, tally);
    }
  });
}
