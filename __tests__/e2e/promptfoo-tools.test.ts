import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * examples/promptfoo/tools (tool calls, legacy function calls) and examples/promptfoo/rag
 * (contextTransform, llm-rubric's rubricPrompt) end to end through dist/cli.js and dist/index.js,
 * and the parity configs of the same features with the verdicts promptfoo itself gave them
 * (scripts/promptfoo-parity.mjs: 17 of 17 agree). One scripted server is model and judge.
 */
const call = (name: string, args: object) => ({
  id: `call_${name}`,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});
const GRADER: Record<string, (user: string) => unknown> = {
  statements: () => ({ statements: ['Paris is the capital of France.'] }),
  verdicts: () => ({ verdicts: [{ reason: 'stated', supported: true }] }),
  relevant_lines: () => ({ reason: 'the first', relevant_lines: [1] }),
  attributions: () => ({ sentences: [{ sentence: 'Paris is the capital of France.', attributed: true }] }),
  rubric_score: (user) => {
    const score = Number(/score:([0-9.]+)/.exec(user)?.[1] ?? '0.9');
    return { reason: `scored ${score}`, pass: !/\bfail\b/.test(user), score };
  },
};

/** The examples' model: the weather bot's calls, the RAG bot's JSON, the parity configs' instructions. */
function model(body: Record<string, unknown>): unknown {
  const messages = body.messages as { role: string; content: string }[];
  const user = messages
    .filter((m) => m.role !== 'system')
    .map((m) => m.content)
    .join('\n');
  const graded = String(
    (body.response_format as { json_schema?: { name?: string } })?.json_schema?.name ?? '',
  );
  if (graded) return GRADER[graded.replace(/^promptfoo_/, '')]?.(user);
  const instruction = /^Call: (\S+) (.*)$/m.exec(user);
  if (instruction && body.responsesApi)
    return {
      output: [
        {
          type: 'function_call',
          id: 'fc',
          call_id: 'c',
          name: instruction[1],
          arguments: instruction[2],
          status: 'completed',
        },
      ],
    };
  if (instruction && body.functions)
    return { message: { function_call: { name: instruction[1], arguments: instruction[2] } } };
  if (instruction)
    return {
      message: {
        tool_calls: [
          { ...call(instruction[1]!, {}), function: { name: instruction[1], arguments: instruction[2] } },
        ],
      },
    };
  const reply = /Reply with: (.*)$/m.exec(user);
  if (reply) return { content: reply[1] };
  if (body.functions)
    return {
      message: {
        function_call: { name: 'get_weather', arguments: /Paris/.test(user) ? '{"city":"Paris"}' : '{}' },
      },
    };
  if (body.tools) {
    if (/kelvin/.test(user))
      return { message: { tool_calls: [call('get_weather', { city: 'Paris', unit: 'kelvin' })] } };
    if (/weather in Paris/.test(user))
      return { message: { tool_calls: [call('get_weather', { city: 'Paris' })] } };
    if (/table/.test(user)) return { message: { tool_calls: [call('book_table', { city: 'Paris' })] } };
    return { content: 'Hello!' };
  }
  return {
    content: JSON.stringify({
      answer: 'Paris is the capital of France [1].',
      context: 'Paris is the capital of France.',
      sources: ['Paris is the capital of France.', 'France is in Europe.'],
    }),
  };
}

let server: FakeOpenAI;
let github: FakeGitHub | undefined;
beforeEach(async () => {
  server = await startOpenAIServer({ respond: ({ body }) => model(body as Record<string, unknown>) });
});
afterEach(async () => {
  await server.close();
  await github?.close();
});

function workspace(...folders: string[]): string {
  const ws = tmpDir('re-pf-tools-');
  for (const f of folders)
    cpSync(path.join(REPO_ROOT, 'examples/promptfoo', f), path.join(ws, f), { recursive: true });
  return ws;
}
const env = () => ({
  OPENAI_API_KEY: 'sk-e2e-target-key-0123',
  OPENAI_BASE_URL: server.url,
  RUBRIC_EVAL_JUDGE_API_KEY: 'sk-e2e-judge-key-000111',
});
const cases = (r: RunResults) =>
  Object.fromEntries(
    r.suites.flatMap((s) =>
      s.cases.map((c): [string, CaseResult] => [
        `${path.basename(path.dirname(s.path))}/${path.basename(s.path)}#${c.id}`,
        c,
      ]),
    ),
  );
const shown = (c: CaseResult) => c.evaluators.map((e) => `${e.name}:${e.verdict}`).join(' ');

test('tools and rag through dist/cli.js: tool calls checked, context from the answer, the team’s grader prompt', async () => {
  const ws = workspace('tools', 'rag');
  const out = path.join(ws, 'results.json');
  const r = await runCli(
    [
      'run',
      'tools/promptfooconfig.yaml',
      'tools/functions.yaml',
      'rag/promptfooconfig.yaml',
      '--judge-base-url',
      server.url,
      '--no-cache',
      '--out',
      out,
    ],
    { cwd: ws, env: env() },
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(1);
  const results = JSON.parse(readFileSync(out, 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  const c = cases(results);
  expect(Object.fromEntries(Object.entries(c).map(([k, v]) => [k, `${v.verdict} ${shown(v)}`]))).toEqual({
    'tools/promptfooconfig.yaml#test-1': 'pass is-valid-openai-tools-call-1:pass javascript-2:pass',
    'tools/promptfooconfig.yaml#test-2': 'fail is-valid-openai-tools-call-1:fail',
    'tools/promptfooconfig.yaml#test-3': 'fail is-valid-openai-tools-call-1:fail',
    'tools/promptfooconfig.yaml#test-4': 'fail is-valid-openai-tools-call-1:fail',
    'tools/functions.yaml#test-1': 'pass is-valid-openai-function-call-1:pass',
    'tools/functions.yaml#test-2': 'fail is-valid-openai-function-call-1:fail',
    'rag/promptfooconfig.yaml#test-1':
      'pass context-faithfulness-1:pass context-relevance-2:pass context-recall-3:pass llm-rubric-4:pass',
  });
  expect(c['tools/promptfooconfig.yaml#test-2']!.evaluators[0]!.misses![0]).toMatch(
    /^Call to "get_weather" does not match schema: .*"allowedValues":\["celsius","fahrenheit"\]/,
  );
  expect(c['tools/promptfooconfig.yaml#test-3']!.evaluators[0]!.misses).toEqual([
    'Called "book_table", but there is no function with that name',
  ]);
  expect(c['tools/promptfooconfig.yaml#test-1']!.answer).toBe(
    JSON.stringify([call('get_weather', { city: 'Paris' })]),
  );
  // The rag test's transform gave the graders the answer text; its context came from the JSON.
  const rag = c['rag/promptfooconfig.yaml#test-1']!;
  expect(rag.evaluators[0]!.transformed_output).toBe('Paris is the capital of France [1].');
  expect(rag.evaluators[1]!.score).toBeCloseTo(0.5, 6);
  const graderPrompt = server.state.requests
    .map((q) => q.body)
    .find((b) => b.response_format?.json_schema?.name === 'rubric_score')!.messages[1].content as string;
  expect(graderPrompt).toMatch(
    /^You review answers of a travel-help bot for What is the capital of France\?\.\nThe answer:\n<<<OUTPUT /,
  );
  expect(graderPrompt).toContain('Grade it against this rubric: Names Paris and cites a source');
  expect(r.stdout).toContain('Called "book_table", but there is no function with that name');
});

test('the parity configs through dist/cli.js give promptfoo’s own verdicts', async () => {
  const ws = workspace('parity');
  const features = ['tools-call', 'function-call', 'tools-responses', 'rubric-prompt'];
  const out = path.join(ws, 'results.json');
  const r = await runCli(
    [
      'run',
      ...features.map((f) => `parity/${f}/promptfooconfig.yaml`),
      '--judge-base-url',
      server.url,
      '--no-cache',
      '--out',
      out,
      '--fail-on',
      'never',
    ],
    { cwd: ws, env: env() },
  );
  // promptfoo fails a function-call check on a Responses API provider whatever it answers: said at load.
  expect(r.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(
      /^warning: parity\/tools-responses\/promptfooconfig\.yaml:22:9 test 2: always-fails: /,
    ),
  ]);
  const results = JSON.parse(readFileSync(out, 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  const got = Object.fromEntries(
    Object.entries(cases(results)).map(([k, v]) => [
      k.replace('/promptfooconfig.yaml', ''),
      [v.verdict, v.score],
    ]),
  );
  // promptfoo 0.121.20's verdicts and scores on the same configs and answers.
  expect(got).toEqual({
    'tools-call#test-1': ['pass', 1],
    'tools-call#test-2': ['fail', 0],
    'tools-call#test-3': ['fail', 0],
    'tools-call#test-4': ['fail', 0],
    'tools-call#test-5': ['fail', 0],
    'tools-call#test-6': ['fail', 0],
    'tools-call#test-7': ['pass', 1],
    'function-call#test-1': ['pass', 1],
    'function-call#test-2': ['fail', 0],
    'function-call#test-3': ['fail', 0],
    'function-call#test-4': ['fail', 0],
    'tools-responses#test-1': ['fail', 0],
    'tools-responses#test-2': ['fail', 0],
    'tools-responses#test-3': ['pass', 1],
    'rubric-prompt#test-1': ['pass', 0.9],
    'rubric-prompt#test-2': ['fail', 0.2],
    'rubric-prompt#test-3': ['fail', 0.5],
  });
});

test('dist/index.js: the comment names each failing call and why', async () => {
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Weather bot tools', body: '', diff: PR_DIFF, files: [] },
  });
  const ws = workspace('tools');
  const run = await runAction({
    workspace: ws,
    inputs: {
      suites: 'tools/promptfooconfig.yaml, tools/functions.yaml',
      'judge-base-url': server.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'github-token': 'ghs_e2e_token_000111',
      'cache-dir': '',
    },
    env: { OPENAI_API_KEY: 'sk-e2e-target-key-0123', OPENAI_BASE_URL: server.url },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  const results = JSON.parse(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  expect(run.outputs).toMatchObject({ verdict: 'fail', passed: '2', failed: '4' });
  const comment = github.state.comments[0]!.body;
  expect(comment).toContain('calls a tool that does not exist');
  expect(comment).toContain('Called "book_table", but there is no function with that name');
  expect(comment).toMatch(/Call to "get_weather" does not match schema/);
  expect(comment).toContain('OpenAI did not return a valid-looking tools response: "Hello!"');
});
