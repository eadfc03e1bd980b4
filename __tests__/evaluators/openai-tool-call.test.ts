import { runToolCall } from '../../src/evaluators/openai-tool-call.js';
import { type CandidateAnswer } from '../../src/evaluators/candidate-answer.js';
import { type EvalCase, type ProviderToolSchema, type ToolCallConfig } from '../../src/suite/types.js';

/** promptfoo's tool-call rules, each from its source: what passes, and each reason a call fails. */
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};
const provider: ProviderToolSchema = {
  target: 'gpt',
  api: 'chat',
  tools: [weather, { type: 'web_search' }],
  functions: [weather.function],
};
const config = (kind: 'tools' | 'function', p: ProviderToolSchema = provider): ToolCallConfig => ({
  type: 'tool_call',
  name: 'check',
  weight: 1,
  pos: { line: 1, column: 1 },
  kind,
  providers: [p],
});
const evalCase = (target: string | null = null) => ({ id: 'c', target }) as unknown as EvalCase;
const answer = (value: unknown): CandidateAnswer => ({
  text: typeof value === 'string' ? value : JSON.stringify(value),
  ...(typeof value === 'string' ? {} : { value }),
  outputMessages: null,
  durationMs: null,
  tokenUsage: null,
  costUsd: null,
});
const call = (name: string, args: string) => ({
  id: 'x',
  type: 'function',
  function: { name, arguments: args },
});
const grade = async (kind: 'tools' | 'function', output: unknown, p?: ProviderToolSchema) => {
  const r = await runToolCall(config(kind, p), evalCase(), answer(output));
  return [r.verdict, r.score, r.misses?.[0] ?? r.error ?? null];
};

test('tools: every call names a function tool and its arguments fit the schema', async () => {
  expect(await grade('tools', [call('get_weather', '{"city":"Paris"}')])).toEqual(['pass', 1, null]);
  // The whole message (text beside the calls) is read through its tool_calls.
  const message = { role: 'assistant', content: 'x', tool_calls: [call('get_weather', '{"city":"Paris"}')] };
  expect(await grade('tools', message)).toEqual(['pass', 1, null]);
  expect(await grade('tools', [call('get_weather', '{"city":"Paris","unit":"kelvin"}')])).toEqual([
    'fail',
    0,
    expect.stringMatching(/^Call to "get_weather" does not match schema: \[\{"instancePath":"\/unit"/),
  ]);
  expect(await grade('tools', [call('get_weather', '{"city":"Paris"}'), call('book', '{}')])).toEqual([
    'fail',
    0,
    'Called "book", but there is no function with that name',
  ]);
  expect(await grade('tools', [call('get_weather', '{city')])).toEqual([
    'fail',
    0,
    expect.stringMatching(/^the arguments of "get_weather" are not JSON: /),
  ]);
});

test('tools: a text, an empty list or a malformed call is no tools response; no tools configured fails', async () => {
  for (const output of ['Sunny', [], [{ function: { name: 'get_weather' } }]])
    expect(await grade('tools', output)).toEqual([
      'fail',
      0,
      expect.stringMatching(/^OpenAI did not return a valid-looking tools response: /),
    ]);
  expect(await grade('tools', [call('get_weather', '{}')], { ...provider, tools: null })).toEqual([
    'fail',
    0,
    'No tools configured in provider, but output contains tool calls',
  ]);
});

test('function: the legacy function_call against `functions`, through a Chat Completions provider only', async () => {
  const fn = { name: 'get_weather', arguments: '{"city":"Paris"}' };
  expect(await grade('function', fn)).toEqual(['pass', 1, null]);
  expect(await grade('function', { role: 'assistant', content: 'x', function_call: fn })).toEqual([
    'pass',
    1,
    null,
  ]);
  expect(await grade('function', { name: 'get_weather', arguments: '{}' })).toEqual([
    'fail',
    0,
    expect.stringMatching(/must have required property 'city'/),
  ]);
  expect(await grade('function', [call('get_weather', '{}')])).toEqual([
    'fail',
    0,
    expect.stringMatching(/^OpenAI did not return a valid-looking function call: \[/),
  ]);
  expect(await grade('function', fn, { ...provider, functions: null })).toEqual([
    'fail',
    0,
    'Called "get_weather", but there is no function with that name',
  ]);
  for (const api of ['responses', null] as const)
    expect(await grade('function', fn, { ...provider, api })).toEqual([
      'fail',
      0,
      'Provider does not have functionality for checking function call.',
    ]);
});

test('a schema ajv will not compile is an error, never a pass; the answering provider’s tools are the ones used', async () => {
  const strange = {
    ...provider,
    functions: [{ name: 'get_weather', parameters: { type: 'object', frobnicate: true } }],
  };
  const r = await runToolCall(
    config('function', strange),
    evalCase(),
    answer({ name: 'get_weather', arguments: '{}' }),
  );
  expect(r.verdict).toBe('error');
  expect(r.error).toMatch(
    /^the `parameters` schema of function 'get_weather' does not compile: strict mode: unknown keyword: "frobnicate"/,
  );
  // Two providers: the case's target picks its own; an unknown target is an error.
  const other: ProviderToolSchema = { ...provider, target: 'other', tools: null };
  const two: ToolCallConfig = { ...config('tools'), providers: [provider, other] };
  const calls = answer([call('get_weather', '{"city":"Paris"}')]);
  expect((await runToolCall(two, evalCase('gpt'), calls)).verdict).toBe('pass');
  expect((await runToolCall(two, evalCase('other'), calls)).verdict).toBe('fail');
  expect((await runToolCall(two, evalCase(null), calls)).verdict).toBe('pass');
  expect(await runToolCall(two, evalCase('third'), calls)).toMatchObject({
    verdict: 'error',
    error: "the case's target 'third' is none of the suite's providers: its tools are unknown",
  });
});
