import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * An openai target given tools, through the real `openai` client against the scripted server:
 * what it sends (Chat Completions and the Responses API) and the tool calls it answers, graded
 * by the tool-call assertions and by code, as promptfoo grades them.
 */
let model: FakeOpenAI;
const call = (name: string, args: string) => ({
  id: `call_${name}`,
  type: 'function',
  function: { name, arguments: args },
});
beforeEach(async () => {
  model = await startOpenAIServer({
    respond: ({ body }) => {
      const text = JSON.stringify(body.messages);
      const args = /Call (\w+) (\{.*?\})/.exec(text.replace(/\\"/g, '"'));
      if (!args) return { content: 'No call.' };
      if (body.responsesApi)
        return {
          output: [
            {
              type: 'function_call',
              id: 'fc_1',
              call_id: 'c1',
              name: args[1],
              arguments: args[2],
              status: 'completed',
            },
          ],
        };
      if (body.functions) return { message: { function_call: { name: args[1], arguments: args[2] } } };
      return {
        message: {
          content: text.includes('Say so') ? 'Calling.' : null,
          tool_calls: [call(args[1]!, args[2]!)],
        },
      };
    },
  });
});
afterEach(() => model.close());

const TOOLS = `- type: function
  function:
    name: get_weather
    parameters:
      type: object
      properties: { city: { type: string } }
      required: [city]
`;

async function run(suite: string): Promise<Record<string, CaseResult>> {
  const root = tmpDir('re-openai-tools-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'evals/promptfooconfig.yaml'), suite);
  writeFileSync(path.join(root, 'evals/tools.yaml'), TOOLS);
  const { results } = await runEvaluation(
    engineConfig(root, model.url, { suites: ['evals/promptfooconfig.yaml'] }),
    {
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-target-key-0000000', OPENAI_BASE_URL: model.url },
    },
  );
  expect(results.errors).toEqual([]);
  return Object.fromEntries(results.suites[0]!.cases.map((c) => [c.id, c]));
}

const verdicts = (c: Record<string, CaseResult>) =>
  Object.fromEntries(
    Object.entries(c).map(([id, x]) => [id, x.evaluators.map((e) => `${e.verdict}`).join(' ')]),
  );

test('Chat Completions: tools and tool_choice are sent; the calls are graded and reach code as objects', async () => {
  const cases = await run(`providers:
  - id: openai:gpt-4.1-mini
    config: { tools: file://tools.yaml, tool_choice: required, temperature: 0 }
prompts: ['{{ q }}']
tests:
  - id: good
    vars: { q: 'Call get_weather {"city":"Paris"}' }
    assert:
      - type: is-valid-openai-tools-call
      - type: javascript
        value: output[0].function.name === 'get_weather'
      - type: contains
        value: '"name":"get_weather"'
  - id: both
    vars: { q: 'Say so, then Call get_weather {"city":"Paris"}' }
    assert: [{ type: is-valid-openai-tools-call }, { type: javascript, value: output.content === 'Calling.' }]
  - id: missing-city
    vars: { q: 'Call get_weather {}' }
    assert: [{ type: is-valid-openai-tools-call }]
  - id: words
    vars: { q: 'Hello' }
    assert: [{ type: is-valid-openai-tools-call }]
`);
  expect(verdicts(cases)).toEqual({
    good: 'pass pass pass',
    both: 'pass pass',
    'missing-city': 'fail',
    words: 'fail',
  });
  expect(cases.good!.answer).toBe(JSON.stringify([call('get_weather', '{"city":"Paris"}')]));
  expect(cases.words!.answer).toBe('No call.');
  const sent = model.state.requests.map((r) => r.body);
  expect(sent).toHaveLength(4);
  for (const b of sent) {
    expect(b.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]);
    expect(b.tool_choice).toBe('required');
    expect(b.temperature).toBe(0);
  }
});

test('legacy functions: functions and function_call are sent; the function call is checked', async () => {
  const cases = await run(`providers:
  - id: openai:chat:gpt-4.1-mini
    config:
      functions: [{ name: get_weather, parameters: { type: object, properties: { city: { type: string } }, required: [city] } }]
      function_call: { name: get_weather }
prompts: ['{{ q }}']
tests:
  - id: good
    vars: { q: 'Call get_weather {"city":"Paris"}' }
    assert: [{ type: is-valid-openai-function-call }, { type: javascript, value: output.name === 'get_weather' }]
  - id: bad
    vars: { q: 'Call get_weather {"town":"Paris"}' }
    assert: [{ type: is-valid-openai-function-call }]
`);
  expect(verdicts(cases)).toEqual({ good: 'pass pass', bad: 'fail' });
  expect(model.state.requests[0]!.body).toMatchObject({
    functions: [{ name: 'get_weather' }],
    function_call: { name: 'get_weather' },
  });
});

test('the Responses API: tools lifted out of `function`, a named tool_choice by name; the call is a line of JSON', async () => {
  const cases = await run(`providers:
  - id: openai:responses:gpt-4.1-mini
    config:
      tools: file://tools.yaml
      tool_choice: { type: function, function: { name: get_weather } }
prompts: ['{{ q }}']
tests:
  - id: call
    vars: { q: 'Call get_weather {"city":"Paris"}' }
    assert:
      - type: is-valid-openai-tools-call
      - type: javascript
        value: JSON.parse(output).name === 'get_weather'
`);
  // promptfoo's Responses provider answers a text, which is no tools response: the check fails there too.
  expect(verdicts(cases)).toEqual({ call: 'fail pass' });
  const body = model.state.requests[0]!.body;
  expect(model.state.requests[0]!.url).toBe('/v1/responses');
  expect(body.tools).toEqual([
    {
      type: 'function',
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ]);
  expect(body.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
});
