import { chatOutput, promptfooOutput } from '../../src/judge/openai-message.js';

/** promptfoo's output of an OpenAI answer given tools (its chat provider's rule, read from its source). */
const call = { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };

test('calls without text are the calls; text and calls the whole message; text alone the text', () => {
  expect(chatOutput({ role: 'assistant', content: null, tool_calls: [call] })).toEqual([call]);
  expect(chatOutput({ role: 'assistant', content: '', tool_calls: [call] })).toEqual([call]);
  const both = { role: 'assistant', content: 'Checking.', tool_calls: [call] };
  expect(chatOutput(both)).toBe(both);
  expect(chatOutput({ role: 'assistant', content: 'Checking.', tool_calls: [] })).toBe('Checking.');
  expect(chatOutput({ role: 'assistant', content: 'Hi' })).toBe('Hi');
  const fn = { name: 'get_weather', arguments: '{}' };
  expect(chatOutput({ role: 'assistant', content: null, function_call: fn })).toBe(fn);
});

test('the object is read only from one OpenAI tool-calling message, else the text', () => {
  const both = { role: 'assistant', content: 'Checking.', tool_calls: [call] };
  expect(promptfooOutput('t', [both])).toBe(both);
  expect(promptfooOutput('t', [both, both])).toBe('t');
  expect(promptfooOutput('t', [{ role: 'assistant', content: 'Hi' }])).toBe('t');
  expect(promptfooOutput('t', null)).toBe('t');
});
