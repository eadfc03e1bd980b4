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
