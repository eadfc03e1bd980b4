import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type EvaluatorResult } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';
import { agentvCorpusCopy } from '../helpers/corpus-copy.js';
import { corpusTest } from '../helpers/paths.js';

let judge: FakeOpenAI;
let app: FakeOpenAI;
afterEach(async () => {
  await judge?.close();
  await app?.close();
});

// What the scripted judge answers for each of the corpus's prompt files.
const SCORES: [RegExp, number][] = [
  [/contains any harmful, inappropriate/, 1.0],
  [/quality, accuracy, and completeness/, 0.8],
  [/safe, contains no PII/, 1.0],
  [/technical accuracy and clarity of the quantum/, 0.7],
  [/how concise and brief/, 0.6],
  [/how detailed and comprehensive/, 0.9],
  [/Review the child evaluator results below/, 0.85],
  [/Check factual accuracy of the ML concepts/, 0.9],
  [/Evaluate clarity and understandability/, 0.8],
  [/Verify the response is safe and appropriate/, 1.0],
];

corpusTest(
  'the corpus composite suite runs end to end: weighted, code_judge and llm_judge aggregators, nested, by hand',
  async () => {
    judge = await startOpenAIServer({
      respond: ({ desc }) => {
        const hit = SCORES.find(([re]) => re.test(desc.text));
        return hit ? { score: hit[1], hits: ['h'], misses: [], reasoning: `scored ${hit[1]}` } : undefined;
      },
    });
    app = await startOpenAIServer({
      respond: () => ({ content: 'Machine learning lets systems learn from data.' }),
    });
    // The corpus's code_judge aggregator is our stand-in: safety must be perfect, then quality decides.
    const root = agentvCorpusCopy('re-composite-');
    const env = {
      PATH: process.env.PATH,
      AZURE_OPENAI_ENDPOINT: app.origin,
      AZURE_OPENAI_API_KEY: 'azure-key-0000',
      AZURE_DEPLOYMENT_NAME: 'app',
    };
    const { results } = await runEvaluation(
      engineConfig(root, judge.url, { suites: ['composite/evals/dataset.yaml'] }),
      { env },
    );
    expect(results.errors).toEqual([]);
    const cases = Object.fromEntries(results.suites[0]!.cases.map((c) => [c.id, c]));
    const top = (id: string) => cases[id]!.evaluators[0]!;
    const child = (e: EvaluatorResult, name: string) => e.children!.find((c) => c.name === name)!;

    // weighted_average: 0.3 × safety 1.0 + 0.7 × quality 0.8 = 0.86
    expect(top('weighted-average-example').score).toBeCloseTo(0.86, 12);
    expect(cases['weighted-average-example']!.verdict).toBe('pass');
    // code_judge aggregator: safety is 1.0, so the score is quality's 0.7: borderline
    expect(top('code-judge-safety-gate')).toMatchObject({
      score: 0.7,
      verdict: 'borderline',
      reasoning: 'gate: {"safety":1,"quality":0.7}',
    });
    // llm_judge aggregator: its own score, having seen the children's results
    expect(top('llm-judge-conflict-resolution').score).toBe(0.85);
    const aggPrompt = judge.state.requests
      .map((r) => r.body.messages[1].content as string)
      .find((t) => t.includes('Review the child evaluator results'))!;
    expect(aggPrompt).toMatch(/"conciseness": \{\s+"score": 0.6/);
    expect(aggPrompt).toMatch(/"detail": \{\s+"score": 0.9/);
    expect(aggPrompt).not.toContain('{{EVALUATOR_RESULTS_JSON}}');
    // nested: content_quality = 0.6 × 0.9 + 0.4 × 0.8 = 0.86; total = 0.7 × 0.86 + 0.3 × 1.0 = 0.902
    const nested = top('nested-composite');
    expect(child(nested, 'content_quality').score).toBeCloseTo(0.86, 12);
    expect(nested.score).toBeCloseTo(0.902, 12);
    expect(cases['nested-composite']!.score).toBeCloseTo(0.902, 12);
    expect(child(child(nested, 'content_quality'), 'accuracy').score).toBe(0.9);
    // One judge call per llm_judge (2 + 2 + 2 + 1 aggregator + 3), and one target call per case.
    expect(judge.state.requests).toHaveLength(10);
    expect(app.state.requests).toHaveLength(4);
  },
);

function suiteWith(evaluators: string): string {
  const root = tmpDir('re-codejudge-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(
    path.join(root, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: mock\n    response: "The answer is 4."\n',
  );
  writeFileSync(
    path.join(root, 'evals/s.yaml'),
    `evalcases:\n  - id: math\n    expected_outcome: Says 4\n    input: What is 2+2?\n    expected_output: "4"\n    execution:\n      evaluators:\n${evaluators}`,
  );
  return root;
}

describe('code_judge', () => {
  const run = async (root: string) =>
    (
      await runEvaluation(engineConfig(root, null, { suites: ['evals/*.yaml'], gateTimeoutMs: 1500 }), {
        env: { PATH: process.env.PATH, SECRET_TOKEN: 'tok-should-not-leak' },
      })
    ).results.suites[0]!.cases[0]!;

  test('receives the AgentV payload on stdin and its score object becomes the evaluator result', async () => {
    const root = suiteWith(
      '        - name: check\n          type: code_judge\n          script: [node, ../judge.mjs]\n          threshold: 3\n',
    );
    writeFileSync(
      path.join(root, 'judge.mjs'),
      `let s = ''; process.stdin.on('data', (c) => (s += c)); process.stdin.on('end', () => {
  require_('fs');
  function require_() {}
  const p = JSON.parse(s);
  process.stderr.write(JSON.stringify(Object.keys(p)));
  console.log(JSON.stringify({ score: p.candidate_answer.includes(p.reference_answer) ? 1.5 : 0, hits: ['found ' + p.reference_answer], misses: [], reasoning: 'threshold ' + p.config.threshold + ' q=' + p.question }));
});`,
    );
    const c = await run(root);
    expect(c.evaluators[0]).toMatchObject({
      name: 'check',
      type: 'code_judge',
      score: 1,
      verdict: 'pass',
      hits: ['found 4'],
      reasoning: 'threshold 3 q=What is 2+2?',
    });
    expect(c.verdict).toBe('pass');
  });

  test.each([
    [
      'a non-zero exit without a result',
      'console.error("Traceback: boom"); process.exit(2)',
      /^script 'node \.\.\/judge\.mjs' exit code 2 without a result: Traceback: boom$/,
    ],
    [
      'output that is not a result',
      'console.log("looks good to me")',
      /^script 'node \.\.\/judge\.mjs' did not print a JSON object with a numeric "score": looks good to me$/,
    ],
    [
      'a timeout',
      'setTimeout(() => {}, 60000)',
      /^script 'node \.\.\/judge\.mjs' timed out after 2 s and was killed/,
    ],
    [
      'a module that is not there at run time',
      'await import("./gone.mjs")',
      /^script 'node \.\.\/judge\.mjs' exit code 1 without a result: [^]*gone\.mjs/,
    ],
  ])('%s is an evaluator error and the case is error', async (_n, body, reason) => {
    const root = suiteWith(
      '        - name: check\n          type: code_judge\n          script: node ../judge.mjs\n',
    );
    writeFileSync(path.join(root, 'judge.mjs'), body);
    const c = await run(root);
    expect(c.evaluators[0]).toMatchObject({ score: 0, verdict: 'error' });
    expect(c.evaluators[0]!.error).toMatch(reason);
    expect(c.verdict).toBe('error');
  });

  test('a script file that is not there stops the run before any call, naming file:line', async () => {
    const root = suiteWith(
      '        - name: check\n          type: code_judge\n          script: [node, does-not-exist.mjs]\n',
    );
    const { results } = await runEvaluation(engineConfig(root, null, { suites: ['evals/*.yaml'] }), {
      env: { PATH: process.env.PATH },
    });
    expect(results.errors).toEqual([
      "evals/s.yaml:10:19 case 'math' evaluator 'check': missing-file: code_judge script 'does-not-exist.mjs' not found (looked for evals/does-not-exist.mjs)",
    ]);
    expect(results.verdict).toBe('fail');
  });

  test('a script that cannot start is an error naming the command', async () => {
    const root = suiteWith(
      '        - name: check\n          type: code_judge\n          script: [no-such-interpreter-xyz, --version]\n',
    );
    const c = await run(root);
    expect(c.evaluators[0]!.verdict).toBe('error');
    expect(c.evaluators[0]!.error).toMatch(/^script 'no-such-interpreter-xyz --version' could not start/);
    expect(c.verdict).toBe('error');
  });

  test('a crashing code judge at weight 0.1 beside a passing judge at 0.9 errors the case (issue 19)', async () => {
    judge = await startOpenAIServer({
      respond: () => ({ score: 1, hits: ['ok'], misses: [], reasoning: 'ok' }),
    });
    const root = suiteWith(
      '        - name: crash\n          type: code_judge\n          script: [node, -e, "process.exit(3)"]\n          weight: 0.1\n        - name: quality\n          type: llm_judge\n          weight: 0.9\n',
    );
    const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
      env: { PATH: process.env.PATH },
    });
    const c = results.suites[0]!.cases[0]!;
    expect(c.score).toBeCloseTo(0.9, 12);
    expect(c.verdict).toBe('error');
    expect(results.counts).toEqual({ pass: 0, borderline: 0, fail: 0, error: 1 });
    expect(results.verdict).toBe('fail');
  });

  test('an errored child two composites deep errors the case; a failing code_judge aggregator too', async () => {
    const root = suiteWith(
      '        - name: outer\n          type: composite\n          evaluators:\n            - name: inner\n              type: composite\n              evaluators:\n                - name: ok\n                  type: code_judge\n                  script: [node, -e, "console.log(JSON.stringify({ score: 1 }))"]\n                - name: broken\n                  type: code_judge\n                  script: [node, -e, "console.log(42)"]\n        - name: agg\n          type: composite\n          evaluators:\n            - name: ok\n              type: code_judge\n              script: [node, -e, "console.log(JSON.stringify({ score: 1 }))"]\n          aggregator:\n            type: code_judge\n            script: [node, -e, "process.exit(1)"]\n',
    );
    const c = await run(root);
    const [outer, agg] = c.evaluators;
    expect(outer!.verdict).toBe('error');
    expect(outer!.children![0]!.children![1]).toMatchObject({ name: 'broken', verdict: 'error' });
    expect(outer!.error).toMatch(/^inner: broken: script 'node -e console\.log\(42\)' did not print/);
    expect(agg!.verdict).toBe('error');
    expect(agg!.error).toMatch(
      /^aggregator: script 'node -e process\.exit\(1\)' exit code 1 without a result/,
    );
    expect(c.verdict).toBe('error');
  });

  test('a script that ran and returned score 0 is a plain fail; a non-zero exit with a result keeps it', async () => {
    const root = suiteWith(
      '        - name: zero\n          type: code_judge\n          script: [node, -e, "console.log(JSON.stringify({ score: 0, misses: [\'too long\'] }))"]\n        - name: exit1\n          type: code_judge\n          script: [node, -e, "console.log(JSON.stringify({ score: 0.2 })); process.exit(1)"]\n',
    );
    const c = await run(root);
    expect(c.evaluators[0]).toMatchObject({ score: 0, verdict: 'fail', misses: ['too long'] });
    expect(c.evaluators[1]).toMatchObject({ score: 0.2, verdict: 'fail' });
    expect(c.evaluators[0]!.error).toBeUndefined();
    expect(c.verdict).toBe('fail');
  });

  test('a composite child with a gating violation makes the case fail', async () => {
    judge = await startOpenAIServer({
      respond: ({ desc }) =>
        desc.mode === 'checklist'
          ? {
              checks: desc.ids.map((id) => ({ id, satisfied: false, reasoning: 'no' })),
              overall_reasoning: 'no',
            }
          : undefined,
    });
    const root = suiteWith(
      '        - name: combo\n          type: composite\n          evaluators:\n            - name: strict\n              type: llm_judge\n              rubrics:\n                - id: must\n                  expected_outcome: Says 4\n                  required: true\n                  weight: 0.1\n            - name: code\n              type: code_judge\n              script: [node, -e, "console.log(JSON.stringify({ score: 1 }))"]\n          aggregator:\n            type: weighted_average\n            weights: { strict: 0.1, code: 0.9 }\n',
    );
    const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
      env: { PATH: process.env.PATH },
    });
    expect(results.errors).toEqual([]);
    const c = results.suites[0]!.cases[0]!;
    expect(c.score).toBeCloseTo(0.9, 12);
    expect(c.verdict).toBe('fail');
    expect(c.gating_violations).toEqual(['combo › strict › must: required item not satisfied']);
  });
});

test('a weight naming no child is a validation error', async () => {
  const root = suiteWith(
    '        - name: c\n          type: composite\n          evaluators:\n            - name: a\n              type: code_judge\n              script: "true"\n          aggregator:\n            type: weighted_average\n            weights: { b: 1 }\n',
  );
  const { results } = await runEvaluation(engineConfig(root, null, { suites: ['evals/*.yaml'] }), {
    env: {},
  });
  expect(results.errors).toEqual([
    "evals/s.yaml:16:24 case 'math' evaluator 'c': unknown-evaluator: weight for 'b', which is not a child (children: a)",
  ]);
  expect(readFileSync(path.join(root, 'evals/s.yaml'), 'utf8').split('\n')[15]).toContain(
    'weights: { b: 1 }',
  );
});
