import { promptfooOutput } from '../../src/judge/openai-message.js';
import { toolAnswer } from '../../src/targets/openai-output.js';

/** promptfoo's output of an OpenAI answer given tools (its chat provider's rule, read from its source). */
const call = { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const usage = { promptTokens: 1, completionTokens: 1, finishReason: 'tool_calls' };

test('a target answer: the calls as JSON text, the message kept so graders read the calls back', () => {
  const message = { role: 'assistant', content: null, tool_calls: [call] };
  const a = toolAnswer({ content: '', ...usage, message });
  expect(a).toEqual({ text: JSON.stringify([call]), outputMessages: [message], toolOutput: true });
  expect(promptfooOutput(a.text, a.outputMessages)).toEqual([call]);
  // A text answer stays a text, with no messages; so does an AgentV trace that is not OpenAI's.
  expect(toolAnswer({ content: 'Hi', ...usage, message: { role: 'assistant', content: 'Hi' } })).toEqual({
    text: 'Hi',
    outputMessages: null,
  });
  const agentv = [{ role: 'assistant', content: 'ok', tool_calls: [{ tool: 'search', input: {} }] }];
  expect(promptfooOutput('ok', agentv)).toBe('ok');
});

test('the Responses API: one line per output item, a function call as its item’s JSON', () => {
  const item = {
    type: 'function_call',
    id: 'fc',
    call_id: 'c',
    name: 'get_weather',
    arguments: '{"city":"Paris"}',
  };
  const text = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] };
  expect(toolAnswer({ content: 'Looking.', ...usage, output: [text, item] })).toEqual({
    text: `Looking.\n${JSON.stringify(item)}`,
    outputMessages: null,
  });
  // promptfoo notes a completed call with no arguments in place of the item.
  const empty = { ...item, arguments: '{}', status: 'completed' };
  expect(JSON.parse(toolAnswer({ content: '', ...usage, output: [empty] }).text)).toMatchObject({
    name: 'get_weather',
    status: 'no_arguments_provided',
  });
});
