// The project's own reading of a static trace file (AgentV's cat-trace.ts needs bun): the
// `trace` events become one assistant message with `tool_calls` (input, output, start time).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { trace: { type: 'string' }, output: { type: 'string' }, prompt: { type: 'string' } },
});
const parsed = JSON.parse(readFileSync(values.trace, 'utf8'));
const events = Array.isArray(parsed.trace) ? parsed.trace : [];
const results = new Map(events.filter((e) => e.type === 'tool_result' && e.id).map((e) => [e.id, e]));
const toolCalls = events
  .filter((e) => e.type === 'tool_call' && e.name)
  .map((e) => ({
    tool: e.name,
    ...(e.input !== undefined ? { input: e.input } : {}),
    ...(results.get(e.id)?.output !== undefined ? { output: results.get(e.id).output } : {}),
    ...(e.id ? { id: e.id } : {}),
    ...(e.startTime ? { start_time: e.startTime } : {}),
  }));
const text = typeof parsed.text === 'string' ? parsed.text : undefined;
writeFileSync(
  values.output,
  JSON.stringify({
    ...(text ? { text } : {}),
    output_messages: [{ role: 'assistant', ...(text ? { content: text } : {}), tool_calls: toolCalls }],
  }),
);
