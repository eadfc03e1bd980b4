import { type CaseResult } from '../../../src/core/results.js';
import { scriptProcesses } from '../../../src/evaluators/script-batch.js';
import { gradeAnswers } from '../../helpers/answers-suite.js';

/**
 * promptfoo `javascript` / `python` assertions and transforms, graded through the real pipeline
 * (answers from an answers file; no judge is asked): the suite's code runs in a child process.
 */
async function grade(
  suite: string,
  answers: Record<string, string>,
  files: Record<string, string> = {},
): Promise<{ cases: Record<string, CaseResult>; errors: string[] }> {
  const results = await gradeAnswers(suite, answers, 'http://127.0.0.1:9/v1', files, {
    PATH: process.env.PATH,
    GITHUB_TOKEN: 'ghs_do_not_leak',
    INPUT_JUDGE_API_KEY: 'sk-test-judge-0000',
    JUDGE_KEY_COPY: 'sk-test-judge-0000',
  });
  return {
    cases: Object.fromEntries((results.suites[0]?.cases ?? []).map((c) => [c.id, c])),
    errors: results.errors,
  };
}

describe('javascript assertions', () => {
  test('inline expressions, bodies with return, numbers with threshold, grading results, not-javascript', async () => {
    const suite = `
prompts: ['Answer: {{ q }}']
tests:
  - id: short
    vars: { q: hello }
    assert:
      - { type: javascript, value: 'output.length < 20' }
      - type: javascript
        value: |
          const words = output.split(' ');
          return words.length === 2;
      - { type: javascript, value: 'const n = output.length; n / 100', threshold: 0.05 }
      - { type: javascript, value: '({ pass: output.includes("world"), score: 0.5, reason: "checked world" })' }
      - { type: not-javascript, value: 'output.includes("bye")' }
      - { type: javascript, value: 'context.vars.q === "hello" && context.prompt === "Answer: hello" && context.logProbs === undefined && context.test.vars.q === "hello" && context.config.k === 2', config: { k: 2 } }
      - { type: javascript, value: '!JSON.stringify(process.env).includes("do_not_leak") && !JSON.stringify(process.env).includes("sk-test-judge")' }
  - id: wrong
    vars: { q: x }
    assert:
      - { type: javascript, value: 'output.length < 5' }
      - { type: javascript, value: '0.2', threshold: 0.5 }
      - { type: not-javascript, value: '({ pass: true, score: 0.9, reason: "r" })' }
      - { type: javascript, value: 'output.nope.deeper' }
      - { type: javascript, value: '"a string"' }
`;
    const before = scriptProcesses.started;
    const { cases, errors } = await grade(suite, { short: 'hello world', wrong: 'a long answer here' });
    expect(errors).toEqual([]);
    const short = cases.short!;
    expect(short.evaluators.map((e) => [e.verdict, e.score])).toEqual([
      ['pass', 1],
      ['pass', 1],
      ['pass', 0.11],
      ['pass', 0.5],
      ['pass', 1],
      ['pass', 1],
      ['pass', 1],
    ]);
    expect(short.evaluators[3]!.reasoning).toBe('checked world');
    const wrong = cases.wrong!.evaluators;
    expect(wrong.map((e) => [e.verdict, e.score])).toEqual([
      ['fail', 0],
      ['fail', 0.2],
      ['fail', 0.9],
      ['fail', 0],
      ['fail', 0],
    ]);
    expect(wrong[0]!.reasoning).toBe('Custom function returned false');
    expect(wrong[3]!.reasoning).toMatch(
      /^Custom function threw error: TypeError: Cannot read properties of undefined/,
    );
    expect(wrong[4]!.reasoning).toMatch(/must return a boolean, a finite number or a grading result/);
    // One process per case, not one per assertion.
    expect(scriptProcesses.started - before).toBe(2);
  });

  test('file:// scripts: the default export, a named export, an ES module; a file that throws is an error', async () => {
    const suite = `
tests:
  - id: files
    vars: { input: q }
    assert:
      - { type: javascript, value: file://check.js }
      - { type: javascript, value: 'file://check.js:long' }
      - { type: javascript, value: file://esm.mjs, threshold: 0.5 }
      - { type: javascript, value: file://throws.js }
`;
    const { cases, errors } = await grade(
      suite,
      { files: 'Paris is the capital' },
      {
        'check.js':
          'module.exports = (output, context) => output.startsWith("Paris");\nmodule.exports.long = (output) => ({ pass: output.length > 100, score: 0.25, reason: "too short" });\n',
        'esm.mjs':
          'export default async function (output, { vars }) { return vars.input === "q" ? 0.75 : 0; }\n',
        'throws.js': 'module.exports = () => { throw new Error("broken check"); };\n',
      },
    );
    expect(errors).toEqual([]);
    const e = cases.files!.evaluators;
    expect(e.map((x) => [x.verdict, x.score])).toEqual([
      ['pass', 1],
      ['fail', 0.25],
      ['pass', 0.75],
      ['error', 0],
    ]);
    expect(e[1]!.reasoning).toBe('too short');
    expect(e[3]!.error).toMatch(/evals\/throws\.js: Error: broken check/);
    expect(cases.files!.verdict).toBe('error');
  });
});

describe('python assertions', () => {
  test('inline and get_assert files return bool, number, dict and text', async () => {
    const suite = `
tests:
  - id: py
    vars: { input: q, expected: Paris }
    assert:
      - { type: python, value: 'output.startswith(context["vars"]["expected"])' }
      - type: python
        value: |
          n = len(output.split())
          return n / 10
        threshold: 0.3
      - { type: python, value: file://check.py }
      - { type: python, value: 'file://check.py:as_text' }
      - { type: python, value: file://check.py, threshold: 0.9 }
      - { type: not-python, value: 'output == "Paris"' }
      - { type: python, value: 'output.nope' }
`;
    const { cases, errors } = await grade(
      suite,
      { py: 'Paris is the capital' },
      {
        'check.py':
          'def get_assert(output, context):\n    return {"pass": "Paris" in output, "score": 0.8, "reason": "found Paris"}\n\ndef as_text(output, context):\n    return "true"\n',
      },
    );
    expect(errors).toEqual([]);
    const e = cases.py!.evaluators;
    expect(e.map((x) => [x.verdict, x.score])).toEqual([
      ['pass', 1],
      ['pass', 0.4],
      ['pass', 0.8],
      ['pass', 1],
      ['fail', 0.8],
      ['pass', 1],
      ['fail', 0],
    ]);
    expect(e[4]!.reasoning).toBe('Python score 0.8 is less than threshold 0.9: found Paris');
    expect(e[6]!.reasoning).toMatch(/^Python code execution failed: AttributeError/);
  });
});

describe('transforms', () => {
  test('options.transform before every assertion, an assertion’s own after it; both outputs kept', async () => {
    const suite = `
defaultTest:
  options:
    transform: output.toUpperCase()
tests:
  - id: t
    vars: { input: q }
    assert:
      - { type: equals, value: 'PARIS' }
      - { type: equals, value: 'PAR', transform: 'output.slice(0, 3)' }
      - { type: javascript, value: 'output === "PARIS"' }
  - id: json
    vars: { input: q }
    options:
      transform: file://parse.js
    assert:
      - { type: javascript, value: 'output.city === "Paris" && typeof output === "object"' }
      - { type: contains, value: '"city":"Paris"' }
      - { type: python, value: 'output["city"] == "Paris"', transform: 'file://shape.py:get_transform' }
`;
    const { cases, errors } = await grade(
      suite,
      { t: 'paris', json: '{"city": "Paris"}' },
      {
        'parse.js': 'module.exports = (output) => JSON.parse(output);\n',
        'shape.py':
          'def get_transform(output, context):\n    return {"city": output["city"], "vars": context["vars"]["input"]}\n',
      },
    );
    expect(errors).toEqual([]);
    const t = cases.t!;
    expect(t.answer).toBe('paris');
    expect(t.evaluators.map((e) => [e.verdict, e.transformed_output])).toEqual([
      ['pass', 'PARIS'],
      ['pass', 'PAR'],
      ['pass', 'PARIS'],
    ]);
    expect(cases.json!.evaluators.map((e) => e.verdict)).toEqual(['pass', 'pass', 'pass']);
  });

  test("a transform's output is redacted and capped as every answer is before it is graded", async () => {
    // The transform makes 300,000 characters and appends a secret: what is graded (and what a judge would see) is neither.
    const suite = `
tests:
  - id: long
    vars: { input: q }
    options:
      transform: 'output.repeat(100000) + " sk-test-judge-0000"'
    assert:
      - { type: javascript, value: 'output.length <= 100200 && output.includes("characters cut by rubric-eval")' }
      - { type: javascript, value: '!output.includes("sk-test-judge")' }
`;
    const { cases, errors } = await grade(suite, { long: 'abc' });
    expect(errors).toEqual([]);
    const long = cases.long!;
    expect(long.evaluators.map((e) => e.verdict)).toEqual(['pass', 'pass']);
    expect(long.evaluators[0]!.transformed_output).toMatch(
      / \[the transformed output, 3000\d\d characters, was cut to 100000 before it was graded\]$/,
    );
  });
});
