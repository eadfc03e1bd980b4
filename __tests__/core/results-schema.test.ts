import { RunResultsSchema } from '../../src/core/results-schema.js';
import { type CheckerResult, type RunResults } from '../../src/core/results.js';
import { resultsOf } from '../helpers/results.js';

const rubric: CheckerResult = {
  path: 'RUBRIC.md',
  title: 'Change',
  hash: 'abc',
  verdict: 'pass',
  score: 1,
  gates: [
    { command: 'npm test', verdict: 'pass', exit_code: 0, timed_out: false, duration_ms: 5, output: '' },
  ],
  checks: [{ id: 'must-1', kind: 'must', text: 'Small', satisfied: true, reasoning: 'yes' }],
  judge_verdict: 'accept',
  feedback: null,
  counts: { gates_passed: 1, gates_total: 1, must_passed: 1, must_total: 1, nice_passed: 0, nice_total: 0 },
};

function valid(): RunResults {
  const r = resultsOf([['a.yaml', 'x', 'pass', 1, '0123456789abcdef']], { rubric: structuredClone(rubric) });
  r.suites[0]!.cases[0]!.evaluators = [
    {
      name: 'rubric',
      type: 'llm_judge',
      mode: 'checklist',
      weight: 1,
      score: 1,
      verdict: 'pass',
      gating_violations: [],
      checks: [{ id: 'r1', satisfied: true, weight: 1, required: false, reasoning: 'ok', votes: '2/3' }],
      children: [],
    },
  ];
  return r;
}

const issue = (value: unknown) => {
  const r = RunResultsSchema.safeParse(value);
  return r.success ? null : `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`;
};

test('a results file as the engine writes it passes; extra fields are carried', () => {
  const r = { ...valid(), something_new: { any: 'thing' } };
  expect(issue(r)).toBeNull();
  expect(RunResultsSchema.parse(r)).toMatchObject({ something_new: { any: 'thing' } });
});

test.each([
  [
    'rubric counts as text',
    (r: RunResults) => ((r.rubric!.counts as unknown as Record<string, unknown>).gates_passed = '@org/team'),
    'rubric.counts.gates_passed',
  ],
  [
    'a gate exit code as text',
    (r: RunResults) => ((r.rubric!.gates[0] as unknown as Record<string, unknown>).exit_code = '<!--'),
    'rubric.gates.0.exit_code',
  ],
  [
    'a judge verdict out of its set',
    (r: RunResults) => ((r.rubric as unknown as Record<string, unknown>).judge_verdict = '@team'),
    'rubric.judge_verdict',
  ],
  [
    'votes that are not n/m',
    (r: RunResults) => (r.suites[0]!.cases[0]!.evaluators[0]!.checks![0]!.votes = '2/3 @org/team'),
    'suites.0.cases.0.evaluators.0.checks.0.votes',
  ],
  [
    'a case verdict out of its set',
    (r: RunResults) => ((r.suites[0]!.cases[0] as unknown as Record<string, unknown>).verdict = 'PASS'),
    'suites.0.cases.0.verdict',
  ],
  [
    'an evaluator score as text',
    (r: RunResults) =>
      ((r.suites[0]!.cases[0]!.evaluators[0] as unknown as Record<string, unknown>).score = '1.00'),
    'suites.0.cases.0.evaluators.0.score',
  ],
  [
    'a child evaluator of the wrong shape',
    (r: RunResults) => (r.suites[0]!.cases[0]!.evaluators[0]!.children = [{ name: 1 } as never]),
    'suites.0.cases.0.evaluators.0.children.0.name',
  ],
  [
    'a case id that is not text',
    (r: RunResults) => ((r.suites[0]!.cases[0] as unknown as Record<string, unknown>).id = { toString: 'x' }),
    'suites.0.cases.0.id',
  ],
])('refused: %s, naming the field', (_, tamper, where) => {
  const r = valid();
  tamper(r);
  expect(issue(r)).toMatch(new RegExp(`^${where.replace(/\./g, '\\.')}: `));
});
