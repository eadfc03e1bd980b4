import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { MAX_TOOL_FILES, MAX_TOOLS } from '../../../src/suite/agentv5/provider-tools.js';
import { Workspace } from '../../../src/core/workspace.js';
import { type ToolCallConfig } from '../../../src/suite/types.js';
import { tmpDir } from '../../helpers/judge.js';

/** An OpenAI provider's `config.tools` / `config.functions`, read as promptfoo reads them, checked where written. */
function load(yaml: string, files: Record<string, string> = {}) {
  const root = tmpDir('re-pf-tools-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
  writeFileSync(path.join(root, 'promptfooconfig.yaml'), yaml);
  const r = loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root));
  const show = (severity: string) =>
    r.diagnostics
      .filter((d) => d.severity === severity)
      .map((d) => `${path.basename(d.file)}:${d.line} ${d.rule}: ${d.message}`);
  return { r, errors: show('error'), warnings: show('warning') };
}

const suite = (config: string, assert = '[{ type: is-valid-openai-tools-call }]') => `providers:
  - id: openai:gpt-4.1-mini
    config:
${config
  .trim()
  .split('\n')
  .map((l) => `      ${l}`)
  .join('\n')}
prompts: ['{{ q }}']
tests:
  - vars: { q: weather? }
    assert: ${assert}
`;

const WEATHER = `- type: function
  function:
    name: get_weather
    parameters:
      type: object
      properties: { city: { type: string } }
      required: [city]
`;

test('tools from a YAML file and a JSON file (a list of references is one list) reach the target and the assertion', () => {
  const x = load(suite('tools: [file://weather.yaml, file://time.json]\ntool_choice: auto'), {
    'weather.yaml': WEATHER,
    'time.json': JSON.stringify([{ type: 'function', function: { name: 'get_time' } }]),
  });
  expect(x.errors).toEqual([]);
  expect(x.warnings).toEqual([]);
  const provider = x.r.suite!.providers![0]!;
  const names = (provider.raw.tools as { function: { name: string } }[]).map((t) => t.function.name);
  expect(names).toEqual(['get_weather', 'get_time']);
  expect(provider.raw.tool_choice).toBe('auto');
  const e = x.r.suite!.cases[0]!.evaluators[0] as ToolCallConfig;
  expect(e).toMatchObject({ type: 'tool_call', kind: 'tools' });
  expect(e.providers).toEqual([
    { target: 'openai:gpt-4.1-mini', api: 'chat', tools: provider.raw.tools, functions: null },
  ]);
});

test('a tools file that is not valid JSON is an error in that file, and nothing runs', () => {
  const x = load(suite('tools: file://tools.json'), { 'tools.json': '[{"type": "function",' });
  expect(x.errors).toHaveLength(1);
  expect(x.errors[0]).toMatch(/^tools\.json:0 json: not valid JSON: /);
  expect(x.r.suite).toBeUndefined();
});

test('a tools file that is not valid YAML is an error at its line', () => {
  const x = load(suite('tools: file://tools.yaml'), {
    'tools.yaml': '- type: function\n  function: [unclosed\n',
  });
  expect(x.errors.length).toBeGreaterThan(0);
  expect(x.errors[0]).toMatch(/^tools\.yaml:\d+ /);
  expect(x.r.suite).toBeUndefined();
});

test('a missing tools file, a script and another extension: each refused where it is named', () => {
  expect(load(suite('tools: file://nope.yaml')).errors).toEqual([
    expect.stringMatching(/^promptfooconfig\.yaml:4 missing-file: .*nope\.yaml/),
  ]);
  expect(load(suite('tools: file://tools.js:getTools'), { 'tools.js': '' }).errors).toEqual([
    "promptfooconfig.yaml:4 unsupported-file: 'file://tools.js:getTools': tools made by a script are not run by rubric-eval; write them in a .json or .yaml file",
  ]);
  expect(load(suite('tools: file://tools.txt'), { 'tools.txt': '[]' }).errors).toEqual([
    "promptfooconfig.yaml:4 unsupported-file: 'file://tools.txt': a tools file is .json, .yaml or .yml",
  ]);
});

test('a schema that is not a schema is an error at its line in the tools file', () => {
  const bad = WEATHER.replace('city: { type: string }', 'city: { type: text }');
  const x = load(suite('tools: file://tools.yaml'), { 'tools.yaml': bad });
  expect(x.errors).toEqual([
    'tools.yaml:6 tool: function \'get_weather\': `parameters` is not a usable JSON Schema: `type` "text" is not a JSON type (string, number, integer, boolean, object, array, null)',
  ]);
  const inline = load(
    suite(
      'functions:\n  - name: f\n    parameters: { type: object, required: city }',
      '[{ type: is-valid-openai-function-call }]',
    ),
  );
  expect(inline.errors).toEqual([
    "promptfooconfig.yaml:6 tool: function 'f': `parameters` is not a usable JSON Schema: `required` is a list of property names",
  ]);
});

test('a tool without a function name, tools that are not a list, and a pattern the bounded engine refuses', () => {
  expect(load(suite('tools:\n  - type: function\n    function: { description: x }')).errors).toEqual([
    'promptfooconfig.yaml:6 tool: a function needs `name`',
  ]);
  expect(load(suite('tools: get_weather')).errors).toEqual([
    'promptfooconfig.yaml:4 type: `tools` is a list of tools, or file:// to a JSON or YAML file of them',
  ]);
  const x = load(
    suite(
      "tools:\n  - type: function\n    function:\n      name: f\n      parameters: { type: object, properties: { a: { type: string, pattern: '(?=a)b' } } }",
    ),
  );
  expect(x.errors).toHaveLength(1);
  expect(x.errors[0]).toMatch(
    /^promptfooconfig\.yaml:8 tool: function 'f': `parameters` is not a usable JSON Schema: JSON Schema pattern/,
  );
});

test('not- forms are refused by name; a provider without tools warns that the assertion always fails', () => {
  const not = load(suite(`tools: file://t.yaml`, '[{ type: not-is-valid-openai-tools-call }]'), {
    't.yaml': WEATHER,
  });
  expect(not.errors).toEqual([
    "promptfooconfig.yaml:8 unsupported-assertion: 'not-is-valid-openai-tools-call' is not run (promptfoo ignores `not-` on is-valid-openai-tools-call and grades it as is-valid-openai-tools-call)",
  ]);
  const none = load(suite('temperature: 0', '[{ type: is-valid-openai-function-call }]'));
  expect(none.errors).toEqual([]);
  expect(none.warnings).toEqual([
    "promptfooconfig.yaml:8 always-fails: provider 'openai:gpt-4.1-mini' has no `config.functions`: `is-valid-openai-function-call` fails on each of its answers, as in promptfoo",
  ]);
  const responses = load(
    suite('tools: file://t.yaml', '[{ type: is-valid-openai-function-call }]').replace(
      'openai:gpt-4.1-mini',
      'openai:responses:gpt-4.1-mini',
    ),
    { 't.yaml': WEATHER },
  );
  expect(responses.warnings).toEqual([
    "promptfooconfig.yaml:8 always-fails: provider 'openai:responses:gpt-4.1-mini' is not an OpenAI Chat Completions provider (promptfoo checks a function call through that provider only): `is-valid-openai-function-call` fails on each of its answers, as in promptfoo",
  ]);
});

test('a `format` in a tool schema is named by a warning: promptfoo checks it, rubric-eval does not', () => {
  const tools = `- type: function
  function:
    name: book
    parameters:
      type: object
      properties:
        format: { type: string }
        when: { anyOf: [{ type: string, format: date-time }, { type: 'null' }] }
`;
  const x = load(suite('tools: file://tools.yaml'), { 'tools.yaml': tools });
  expect(x.errors).toEqual([]);
  // A property named `format` is no keyword; the one inside `anyOf` is.
  expect(x.warnings).toEqual([
    "tools.yaml:8 format-unchecked: function 'book': `format` is not checked by rubric-eval's tool-call checks (promptfoo checks it); a value of the wrong format passes here",
  ]);
});

test('a tools file that names itself, or two that name each other, is refused with the chain (no stack overflow)', () => {
  const self = load(suite('tools: file://tools.yaml'), { 'tools.yaml': '- file://tools.yaml\n' });
  expect(self.errors).toEqual([
    "tools.yaml:1 include-loop: 'file://tools.yaml' is read again on its own path: promptfooconfig.yaml -> tools.yaml -> tools.yaml",
  ]);
  const pair = load(suite('tools: file://a.yaml'), {
    'a.yaml': WEATHER + '- file://b.yaml\n',
    'b.yaml': '- file://a.yaml\n',
  });
  expect(pair.errors).toEqual([
    "b.yaml:1 include-loop: 'file://a.yaml' is read again on its own path: promptfooconfig.yaml -> a.yaml -> b.yaml -> a.yaml",
  ]);
  // The same file twice side by side is no loop: its tools are listed twice, as promptfoo does.
  const twice = load(suite('tools: [file://weather.yaml, file://weather.yaml]'), { 'weather.yaml': WEATHER });
  expect(twice.errors).toEqual([]);
});

test(`files that fan out stop at ${MAX_TOOL_FILES} files read, and a list at ${MAX_TOOLS} tools`, () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 4; i++) files[`l${i}.yaml`] = `- file://l${i + 1}.yaml\n`.repeat(20);
  files['l4.yaml'] = '- {type: function, function: {name: f, parameters: {type: object}}}\n';
  const fan = load(suite('tools: file://l0.yaml'), files);
  expect(fan.errors).toEqual([
    `l3.yaml:8 too-many-files: 'file://l4.yaml': \`tools\` reads more than ${MAX_TOOL_FILES} files in all; list the tools in fewer files`,
  ]);
  const tool = (i: number) => `- {type: function, function: {name: f${i}}}\n`;
  const many = (n: number) => Array.from({ length: n }, (_, i) => tool(i)).join('');
  expect(load(suite('tools: file://t.yaml'), { 't.yaml': many(MAX_TOOLS) }).errors).toEqual([]);
  expect(load(suite('tools: file://t.yaml'), { 't.yaml': many(MAX_TOOLS + 1) }).errors).toEqual([
    `t.yaml:${MAX_TOOLS + 1} too-many-tools: \`tools\` holds more than ${MAX_TOOLS}, the most OpenAI takes in one request`,
  ]);
});

test('a `parameters` schema whose `$ref`s multiply (2^34 checks per call) is refused at load; a recursive tree is not', () => {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < 34; i++)
    defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs.d34 = { type: 'string' };
  const tool = (parameters: unknown) =>
    JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters } }]);
  const bad = load(suite('tools: file://tools.json'), {
    'tools.json': tool({ type: 'object', $defs: defs, properties: { city: { $ref: '#/$defs/d0' } } }),
  });
  expect(bad.errors).toEqual([
    "tools.json:1 tool: function 'get_weather': `parameters` is not a usable JSON Schema: the schema with each `$ref` expanded has more than 10000 parts (a `$ref` used many times, or definitions that each use the next more than once): checking a value against it would take too long",
  ]);
  const tree = {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
  };
  expect(load(suite('tools: file://tools.json'), { 'tools.json': tool(tree) }).errors).toEqual([]);
});
