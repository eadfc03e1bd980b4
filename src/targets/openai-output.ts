import { type ChatResponse } from '../judge/chat.js';
import { chatOutput } from '../judge/openai-message.js';
import { isRecord } from '../core/is-record.js';

/**
 * What an OpenAI target given tools answers, as promptfoo makes it its output. Chat Completions:
 * the text when the model wrote one and called nothing; its tool calls (or legacy function call)
 * when it wrote no text; the whole message when it did both. The Responses API: one line per
 * output item, a function call as its item's JSON. An answer that is not a text is graded as its
 * JSON text, and its message is kept as the output messages, from which the tool-call
 * assertions read it back (judge/openai-message.ts `promptfooOutput`), also after the record stage.
 */

/** The Responses API's output items as promptfoo joins them (a function call with no arguments noted). */
function responsesText(items: readonly unknown[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'function_call')
      parts.push(
        item.arguments === '{}' && item.status === 'completed'
          ? JSON.stringify({
              type: 'function_call',
              name: item.name,
              status: 'no_arguments_provided',
              note: 'Function called but no arguments were extracted. Consider using the correct Responses API tool format.',
            })
          : JSON.stringify(item),
      );
    else if (item.type === 'message' && item.role === 'assistant' && Array.isArray(item.content)) {
      const text = item.content
        .map((c) => (isRecord(c) && c.type === 'output_text' && typeof c.text === 'string' ? c.text : ''))
        .join('');
      if (text) parts.push(text);
    }
  }
  return parts.join('\n');
}

/**
 * A model target's answer when it was given tools: its text, and its message when that is what it
 * answered, marked `toolOutput` so the evaluators give promptfoo's object for it (and only for it).
 */
export function toolAnswer(r: ChatResponse): {
  text: string;
  outputMessages: unknown[] | null;
  toolOutput?: true;
} {
  if (r.output) return { text: responsesText(r.output), outputMessages: null };
  if (!isRecord(r.message)) return { text: r.content, outputMessages: null };
  const out = chatOutput(r.message);
  if (typeof out === 'string') return { text: out, outputMessages: null };
  return { text: JSON.stringify(out), outputMessages: [r.message], toolOutput: true };
}
