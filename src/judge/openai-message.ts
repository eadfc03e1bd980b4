/**
 * The shape of an OpenAI Chat Completions assistant message as promptfoo makes it an output:
 * pure functions on the message, shared by the target that receives it (targets/openai-output.ts)
 * and the evaluators that grade it (evaluators/context.ts), so neither imports the other.
 */

import { isRecord } from '../core/is-record.js';

/** promptfoo's output of one Chat Completions message: its text, or an object (calls or the message). */
export function chatOutput(message: Record<string, unknown>): unknown {
  const { content, tool_calls: calls, function_call: call } = message;
  if (content && (call || calls)) return Array.isArray(calls) && calls.length === 0 ? content : message;
  if (content === null || content === undefined || (content === '' && calls)) return call || calls || '';
  return content;
}

/** An OpenAI assistant message that called tools (the only kind a tool-given target keeps). */
function isToolMessage(m: unknown): m is Record<string, unknown> {
  if (!isRecord(m) || m.role !== 'assistant') return false;
  const calls = m.tool_calls;
  return (
    (Array.isArray(calls) && calls.length > 0 && calls.every((c) => isRecord(c) && isRecord(c.function))) ||
    isRecord(m.function_call)
  );
}

/**
 * The answer of an OpenAI model that was sent tools, as promptfoo's assertions see it: the object
 * its one tool-calling message makes, else its text. Only such an answer is read so: a CLI
 * target's or an answers file's messages are a trace, and code is given their text.
 */
export function promptfooOutput(text: string, outputMessages: readonly unknown[] | null): unknown {
  const only = outputMessages?.length === 1 ? outputMessages[0] : undefined;
  return isToolMessage(only) ? chatOutput(only) : text;
}
