import type OpenAI from 'openai';

/**
 * Chat Completions' tools in the Responses API's shape, as promptfoo sends them: a function
 * tool's definition lifted out of `function`, a `tool_choice` naming a function by `name`.
 * `functions` / `function_call` are Chat Completions' only and are not sent.
 */
export function responsesTools(body: OpenAI.ChatCompletionCreateParamsNonStreaming): {
  tools?: OpenAI.Responses.Tool[];
  tool_choice?: OpenAI.Responses.ResponseCreateParams['tool_choice'];
} {
  const out: Record<string, unknown> = {};
  if (Array.isArray(body.tools))
    out.tools = body.tools.map((t) => {
      const { function: fn, ...rest } = t as unknown as Record<string, unknown>;
      return t.type === 'function' && typeof fn === 'object' && fn !== null ? { ...rest, ...fn } : t;
    });
  const choice = body.tool_choice as unknown;
  if (choice !== undefined) {
    const named = choice as { type?: unknown; function?: { name?: unknown } };
    out.tool_choice =
      named.type === 'function' && typeof named.function?.name === 'string'
        ? { type: 'function', name: named.function.name }
        : choice;
  }
  return out;
}
