import { type CandidateAnswer, type TokenUsage } from './candidate-answer.js';
import { isRecord } from '../core/is-record.js';

/** One tool call of a target's answer, from `output_messages[].tool_calls[]`. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown> | undefined;
  /** The call's own `duration_ms`, when the target reported it. */
  durationMs: number | undefined;
}

/** What the trace evaluators read: the tool calls in order and the call's metrics (AgentV's trace summary). */
export interface ExecutionTrace {
  toolCalls: ToolCall[];
  toolCallsByName: Record<string, number>;
  /** Assistant messages: AgentV counts each as one model call. Null when only metrics are known. */
  llmCallCount: number | null;
  tokenUsage: TokenUsage | null;
  costUsd: number | null;
  durationMs: number | null;
}

const finite = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** The tool calls of output messages, in order; entries without a tool name are skipped. */
function toolCallsOf(messages: readonly unknown[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const m of messages) {
    if (!isRecord(m) || !Array.isArray(m.tool_calls)) continue;
    for (const c of m.tool_calls) {
      if (!isRecord(c) || typeof c.tool !== 'string') continue;
      calls.push({
        name: c.tool,
        args: isRecord(c.input) ? c.input : undefined,
        durationMs: finite(c.duration_ms),
      });
    }
  }
  return calls;
}

/**
 * The trace of an answer, or null when the target gave neither messages nor metrics (a mock or
 * a recorded answer): AgentV's rule for when a trace summary exists. A target that printed plain
 * text counts as one assistant message, as AgentV wraps it.
 */
export function traceOf(answer: CandidateAnswer): ExecutionTrace | null {
  const hasMetrics = answer.durationMs !== null || answer.tokenUsage !== null || answer.costUsd !== null;
  if (answer.outputMessages === null && !hasMetrics) return null;
  const messages = answer.outputMessages ?? [{ role: 'assistant', content: answer.text }];
  const toolCalls = toolCallsOf(messages);
  const toolCallsByName: Record<string, number> = {};
  for (const c of toolCalls) toolCallsByName[c.name] = (toolCallsByName[c.name] ?? 0) + 1;
  return {
    toolCalls,
    toolCallsByName,
    llmCallCount: messages.filter((m) => isRecord(m) && m.role === 'assistant').length,
    tokenUsage: answer.tokenUsage,
    costUsd: answer.costUsd,
    durationMs: answer.durationMs,
  };
}
