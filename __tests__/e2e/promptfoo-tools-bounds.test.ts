import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * Tools files and tool schemas a pull request writes, through dist/cli.js: a loop, a fan-out and a
 * schema whose `$ref`s multiply are located errors (exit 2, the results file written), never a
 * crash or a check that runs for minutes; and a CLI target's tool-calling message stays a trace.
 */

let server: FakeOpenAI;
beforeEach(async () => {
  server = await startOpenAIServer({
    respond: ({ body }) =>
      (body as { tools?: unknown }).tools
        ? {
            message: {
              tool_calls: [
                {
                  id: 'c',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            },
          }
        : undefined,
  });
});
afterEach(() => server.close());

const env = () => ({
  OPENAI_API_KEY: 'sk-e2e-target-key-0123',
  OPENAI_BASE_URL: server.url,
  RUBRIC_EVAL_JUDGE_API_KEY: 'sk-e2e-judge-key-000111',
});

const SUITE = (ref: string) =>
  [
    'description: tools',
    'providers:',
    '  - id: openai:gpt-4.1-mini',
    '    config:',
    `      tools: ${ref}`,
    "prompts: ['{{ q }}']",
    'tests:',
    '  - vars: { q: weather in Paris }',
    '    assert:',
    '      - type: is-valid-openai-tools-call',
    '',
  ].join('\n');

async function run(ws: string, files: Record<string, string>) {
  writeFileSync(path.join(ws, 'promptfooconfig.yaml'), SUITE('file://tools.yaml'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(ws, name), text);
  const out = path.join(ws, 'results.json');
  const r = await runCli(['run', 'promptfooconfig.yaml', '--no-cache', '--out', out], {
    cwd: ws,
    env: env(),
  });
  return { ...r, results: JSON.parse(readFileSync(out, 'utf8')) as RunResults };
}

test('a tools file that names itself is an include-loop error, exit 2 with the results file, no stack overflow', async () => {
  const r = await run(tmpDir('re-tools-loop-'), { 'tools.yaml': '- file://tools.yaml\n' });
  expect(r.stderr).not.toMatch(/RangeError|Maximum call stack/);
  expect(r.code).toBe(2);
  expect(r.stdout + r.stderr).toContain(
    "tools.yaml:1:3 suite: include-loop: 'file://tools.yaml' is read again on its own path: promptfooconfig.yaml -> tools.yaml -> tools.yaml",
  );
  expect(r.results.errors.join('\n')).toContain('include-loop');
});

test('five small tools files that fan out to 160,000 reads stop at the file bound, exit 2', async () => {
  const files: Record<string, string> = { 'tools.yaml': '- file://l1.yaml\n'.repeat(20) };
  for (let i = 1; i < 4; i++) files[`l${i}.yaml`] = `- file://l${i + 1}.yaml\n`.repeat(20);
  files['l4.yaml'] = '- {type: function, function: {name: f, parameters: {type: object}}}\n';
  const r = await run(tmpDir('re-tools-fan-'), files);
  expect(r.code).toBe(2);
  expect(r.stdout + r.stderr).toContain('too-many-files');
  expect(server.state.requests).toHaveLength(0);
});

test('a 2 KB `parameters` schema whose `$ref`s double 34 times is refused at load; a recursive one is checked', async () => {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < 34; i++)
    defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs.d34 = { type: 'string' };
  const tools = (parameters: unknown) =>
    JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters } }]);
  const started = Date.now();
  const bad = await run(tmpDir('re-tools-ajv-'), {
    'tools.yaml': tools({ type: 'object', $defs: defs, properties: { city: { $ref: '#/$defs/d0' } } }),
  });
  expect(bad.code).toBe(2);
  expect(bad.stdout + bad.stderr).toMatch(/`\$ref` expanded has more than 10000 parts/);
  // Before: one check of this call ran 47 s on the main thread (review of 0dd5eb2..5d53aba).
  expect(Date.now() - started).toBeLessThan(20_000);
  const place = {
    type: 'object',
    properties: { city: { type: 'string' }, near: { type: 'array', items: { $ref: '#' } } },
  };
  const good = await run(tmpDir('re-tools-tree-'), { 'tools.yaml': tools(place) });
  expect(good.code).toBe(0);
  expect(good.results.suites[0]!.cases[0]!.verdict).toBe('pass');
}, 60_000);

test("a CLI target's one assistant message with text and tool calls gives code assertions its text", async () => {
  const ws = tmpDir('re-cli-tools-');
  mkdirSync(path.join(ws, '.agentv'));
  writeFileSync(
    path.join(ws, '.agentv/targets.yaml'),
    'targets:\n  - name: bot\n    provider: cli\n    command_template: node bot.mjs {OUTPUT_FILE}\n    cwd: ..\n',
  );
  const message = {
    role: 'assistant',
    content: 'Paris is the capital of France.',
    tool_calls: [{ id: '1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
  };
  writeFileSync(
    path.join(ws, 'bot.mjs'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], ${JSON.stringify(JSON.stringify({ output_messages: [message] }))});\n`,
  );
  writeFileSync(
    path.join(ws, 'eval.yaml'),
    [
      'description: cli target with a tool call',
      'tests:',
      '  - id: t1',
      '    input: What is the capital of France?',
      '    assert:',
      '      - type: javascript',
      `        value: "output.includes('Paris')"`,
      '',
    ].join('\n'),
  );
  const out = path.join(ws, 'r.json');
  await runCli(['run', 'eval.yaml', '--target', 'bot', '--no-cache', '--out', out], { cwd: ws, env: env() });
  const c = (JSON.parse(readFileSync(out, 'utf8')) as RunResults).suites[0]!.cases[0]!;
  expect(c.evaluators[0]!.reasoning ?? '').not.toMatch(/is not a function/);
  expect(c.verdict).toBe('pass');
});
