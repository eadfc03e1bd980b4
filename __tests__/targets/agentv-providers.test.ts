import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startOpenAIServer();
});
afterEach(async () => judge.close());

/** Answers with the prompt it was given, upper-cased, into {OUTPUT_FILE}. */
const AGENT = `import { writeFileSync } from 'node:fs';
const [, , prompt, out] = process.argv;
writeFileSync(out, JSON.stringify({ text: prompt.toUpperCase() + ' ' + (process.env.AGENT_SUFFIX ?? '') }));
`;

function workspace(providers: string, suite: string): string {
  const root = tmpDir('re-agentv5-providers-');
  mkdirSync(path.join(root, '.agentv'));
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'agent.mjs'), AGENT);
  writeFileSync(path.join(root, '.agentv/providers.yaml'), providers);
  writeFileSync(path.join(root, 'evals/suite.yaml'), suite);
  return root;
}

const SUITE = `prompts: ["say {{ word }}"]
providers: [agent]
tests:
  - id: hello
    vars: { word: hello }
    assert:
      - { type: starts-with, value: SAY HELLO }
      - { type: contains, value: DONE }
`;

test('a cli provider from the .agentv catalog answers: argv command, {{ env.X }} and a cwd', async () => {
  const root = workspace(
    `- id: cli\n  label: agent\n  command: [node, ./agent.mjs, "{PROMPT}", "{OUTPUT_FILE}"]\n  cwd: ..\n  grader_target: grader\n`,
    SUITE,
  );
  const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/suite.yaml'] }), {
    env: { PATH: process.env.PATH, AGENT_SUFFIX: 'DONE' },
  });
  expect(results.errors).toEqual([]);
  const c = results.suites[0]!.cases[0]!;
  expect(c).toMatchObject({ id: 'hello', verdict: 'pass', score: 1, target: 'agent' });
  expect(c.answer).toBe('SAY HELLO DONE');
});

test('a catalog model provider with an unset {{ env.X }} stops the run before any call, naming the variable', async () => {
  const root = workspace(
    `- id: azure\n  label: agent\n  endpoint: "{{ env.AZURE_OPENAI_ENDPOINT }}"\n  api_key: "{{ env.AZURE_OPENAI_API_KEY }}"\n  model: gpt\n`,
    SUITE,
  );
  const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/suite.yaml'] }), {
    env: { PATH: process.env.PATH },
  });
  expect(results.verdict).toBe('fail');
  expect(results.errors.join('\n')).toMatch(/environment variable AZURE_OPENAI_ENDPOINT .*is not set/);
  expect(judge.state.requests).toHaveLength(0);
});
