import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { CORPUS, corpusTest, REPO_ROOT } from '../helpers/paths.js';

const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, 'schema/eval-suite.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);

corpusTest.each(['basic', 'rubric', 'composite', 'local-cli', 'code-judge-sdk'])(
  'corpus agentv/%s suite validates against the committed JSON Schema',
  (name) => {
    const suite = parse(readFileSync(path.join(CORPUS, 'agentv', name, 'evals/dataset.yaml'), 'utf8'));
    const ok = validate(suite);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  },
);

corpusTest.each([
  'features/batch-cli/evals/dataset.yaml',
  'features/document-extraction/evals/dataset-confusion-metrics.yaml',
  'features/document-extraction/evals/dataset-field-accuracy.yaml',
  'features/execution-metrics/evals/dataset.yaml',
  'features/git-url-references/evals/dataset.yaml',
  'features/latency-assertions/evals/dataset.yaml',
  'features/prompt-template-sdk/evals/dataset.yaml',
  'features/tool-trajectory-advanced/evals/trace-file-demo.yaml',
  'features/tool-trajectory-simple/evals/dataset.yaml',
  'showcase/tool-evaluation-plugins/tool-eval-demo.yaml',
])('corpus agentv-examples/%s validates against the JSON Schema', (file) => {
  const ok = validate(parse(readFileSync(path.join(CORPUS, 'agentv-examples', file), 'utf8')));
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
});

test("the schema knows each evaluator type's keys", () => {
  const suite = (evaluator: Record<string, unknown>) => ({
    evalcases: [{ id: 'x', input: 'hi', execution: { evaluators: [{ name: 'e', ...evaluator }] } }],
  });
  expect(validate(suite({ type: 'latency', threshold: 100 }))).toBe(true);
  expect(validate(suite({ type: 'latency' }))).toBe(false);
  expect(validate(suite({ type: 'field_accuracy', fields: [{ path: 'a', match: 'fuzzy' }] }))).toBe(false);
  expect(validate(suite({ type: 'tool_trajectory', mode: 'sideways' }))).toBe(false);
});

test('the example suites validate too', () => {
  for (const file of ['examples/evals/support.yaml']) {
    const ok = validate(parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  }
});

test('the schema rejects what the loader rejects structurally', () => {
  expect(
    validate({
      evalcases: [{ id: 'x', input: 'hi', execution: { evaluators: [{ name: 'j', type: 'llm_jduge' }] } }],
    }),
  ).toBe(false);
  expect(validate({ evalcases: [{ id: 'x', input: 42 }] })).toBe(false);
  expect(validate({ evalcases: [{ input: 'hi' }] })).toBe(false);
});

test('editors flag typos: the objects AgentV closes are closed, and rubric items and score bands', () => {
  const base = { id: 'x', input: 'hi' };
  expect(validate({ evalcases: [base], descripton: 'typo' })).toBe(false);
  expect(validate({ evalcases: [{ id: 'x', input: [{ role: 'user', contnet: 'hi' }] }] })).toBe(false);
  expect(
    validate({
      evalcases: [{ id: 'x', input: [{ role: 'user', content: [{ type: 'text', valeu: 'a' }] }] }],
    }),
  ).toBe(false);
  const range = { score_ranges: [{ score_range: [0, 10], expected_outcome: 'any' }] };
  expect(
    validate({ evalcases: [{ ...base, rubrics: [{ id: 'a', required_min_scroe: 7, ...range }] }] }),
  ).toBe(false);
  expect(
    validate({
      evalcases: [{ ...base, rubrics: [{ id: 'a', score_ranges: [{ score_range: [0, 10], outcom: 'x' }] }] }],
    }),
  ).toBe(false);
  // A code judge's extra keys are its config, as in AgentV: left open.
  const judge = { name: 'j', type: 'code_judge', script: 'node j.mjs', max_words: 40 };
  expect(validate({ evalcases: [{ ...base, execution: { evaluators: [judge] } }] })).toBe(true);
});

describe('AgentV 5 / promptfoo suites', () => {
  corpusTest.each([
    'examples/features/basic/evals/suite.yaml',
    'examples/features/assert/evals/suite.yaml',
    'examples/features/trajectory-assertions-simple/evals/suite.yaml',
    'examples/features/rubric/evals/suite.yaml',
  ])('corpus agentv5-examples/%s validates against the JSON Schema', (file) => {
    const ok = validate(parse(readFileSync(path.join(CORPUS, 'agentv5-examples', file), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test('the schema rejects what the loader rejects structurally', () => {
    const suite = (assert: unknown[]) => ({
      prompts: ['{{ input }}'],
      tests: [{ id: 'x', vars: { input: 'hi' }, assert }],
    });
    expect(
      validate(suite(['a criterion', { type: 'contains', value: 'x', weight: 2, required: true }])),
    ).toBe(true);
    expect(validate(suite([{ value: 'no type' }]))).toBe(false);
    expect(validate(suite([{ type: 'contains', weight: -1 }]))).toBe(false);
    expect(validate(suite([{ type: 'contains', required: 0.5 }]))).toBe(false);
    expect(validate({ tests: [{ id: 'x', input: 'hi', rubrics: 'not a list' }] })).toBe(false);
  });
});
