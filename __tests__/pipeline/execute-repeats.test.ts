import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult } from '../../src/core/results.js';
import { repeatedCases } from '../../src/pipeline/execute-repeats.js';
import { type PlannedCase } from '../../src/pipeline/plan.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { type TargetRunner } from '../../src/targets/providers.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
let app: FakeOpenAI | undefined;
beforeEach(async () => {
  judge = await startOpenAIServer();
});
afterEach(async () => {
  await judge.close();
  await app?.close();
  app = undefined;
});

function repo(targets: string, suite: string): string {
  const root = tmpDir('re-repeat-exec-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'targets.yaml'), targets);
  writeFileSync(path.join(root, 'evals/s.yaml'), suite);
  return root;
}

const SUITE = 'evalcases:\n  - id: a\n    input: question a\n    rubrics: [x]\n';

test("a model target's repeated answers are cached per repeat: an unchanged re-run asks the model nothing", async () => {
  let n = 0;
  app = await startOpenAIServer({ respond: () => ({ content: `answer ${++n}` }) });
  const root = repo(
    `targets:\n  - name: default\n    provider: openai\n    endpoint: ${app.url}\n    api_key: app-key-123456\n    model: app-model\n`,
    SUITE,
  );
  const config = engineConfig(root, judge.url, {
    suites: ['evals/*.yaml'],
    cacheDir: '.cache',
    cacheMode: 'readwrite',
    repeat: 3,
  });
  const first = (await runEvaluation(config, { env: {} })).results.suites[0]!.cases[0]!;
  expect(app.state.requests).toHaveLength(3);
  expect(first.repeats).toBe(3);
  const texts = first.answers!.map((a) => a.answer);
  expect(new Set(texts).size).toBe(3); // three independent calls, three answers
  const again = (await runEvaluation(config, { env: {} })).results.suites[0]!.cases[0]!;
  expect(app.state.requests).toHaveLength(3);
  // Repeat k is served the answer repeat k had.
  expect(again.answers!.map((a) => a.answer)).toEqual(texts);

  // Without repeats a model target is asked afresh, as always.
  const once = engineConfig(root, judge.url, {
    suites: ['evals/*.yaml'],
    cacheDir: '.cache',
    cacheMode: 'readwrite',
  });
  await runEvaluation(once, { env: {} });
  await runEvaluation(once, { env: {} });
  expect(app.state.requests).toHaveLength(5);
});

test('a target with a fixed answer is judged once, with a warning, however many repeats are asked', async () => {
  const root = repo('targets:\n  - name: default\n    provider: mock\n    response: always this\n', SUITE);
  const warnings: string[] = [];
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, { suites: ['evals/*.yaml'], repeat: 'auto' }),
    {
      env: {},
      hooks: { warn: (m) => warnings.push(m) },
    },
  );
  const c = results.suites[0]!.cases[0]!;
  expect(c.repeats).toBeUndefined();
  expect(c.verdict).toBe('pass');
  expect(warnings).toContain(
    "repeat: target 'default' (mock) gives the same answer every time; its cases are judged on one answer",
  );
  expect(judge.state.requests).toHaveLength(1);
});

test("the suite's repeat applies unless the input sets one", async () => {
  let n = 0;
  app = await startOpenAIServer({ respond: () => ({ content: `answer ${++n}` }) });
  const root = repo(
    `targets:\n  - name: default\n    provider: openai\n    endpoint: ${app.url}\n    api_key: app-key-123456\n    model: app-model\n`,
    `repeat: 4\n${SUITE}`,
  );
  const bySuite = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
    env: {},
  });
  expect(bySuite.results.suites[0]!.cases[0]!.repeats).toBe(4);
  const byInput = await runEvaluation(
    engineConfig(root, judge.url, { suites: ['evals/*.yaml'], repeat: 2 }),
    {
      env: {},
    },
  );
  expect(byInput.results.suites[0]!.cases[0]!.repeats).toBe(2);
  // A fixed repeat reads the observed rate (the README's repeats): nothing is left inconclusive.
  const c = byInput.results.suites[0]!.cases[0]!;
  expect(c.verdict).toBe(c.pass_rate! >= 0.8 ? 'pass' : 'fail');
  expect(byInput.results.counts.inconclusive ?? 0).toBe(0);
});

test("in the judge stage a recorded answer is judged once: the pull request's run recorded one answer per case", async () => {
  const warnings: string[] = [];
  const repeated = repeatedCases((m) => warnings.push(m));
  const runner = {
    name: 'default',
    provider: 'recorded',
    healthcheck: () => Promise.resolve(),
    answer: () => Promise.reject(new Error('not called here')),
  } as unknown as TargetRunner;
  const asked: (number | undefined)[] = [];
  const one = { id: 'c', verdict: 'pass', score: 1 } as CaseResult;
  const planned = { target: { runner, definition: null }, repeat: 5 } as unknown as PlannedCase;
  const result = await repeated(
    planned,
    (k) => {
      asked.push(k);
      return Promise.resolve(one);
    },
    undefined,
  );
  expect(asked).toEqual([undefined]);
  expect(result).toBe(one);
  expect(warnings).toEqual([
    "repeat: target 'default' (recorded) gives the same answer every time; its cases are judged on one answer",
  ]);
});
