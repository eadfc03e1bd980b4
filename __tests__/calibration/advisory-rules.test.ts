import { applyAdvisory } from '../../src/calibration/advisory.js';
import { type BelowFloor } from '../../src/core/calibration-results.js';
import { type CaseResult, type CheckResult, type EvaluatorResult } from '../../src/core/results.js';
import { negateResult } from '../../src/evaluators/negate.js';
import { type EvalSuite, type EvaluatorConfig } from '../../src/suite/types.js';

// The rules each result above an advisory check is scored again by, on results as the run
// writes them: `names-paris` (required, not met) is advisory; `concise` is met.
const ADVISORY: BelowFloor[] = [
  { suite: 's.yaml', id: 'c', check: 'names-paris', n: 12, kappa: 0, reason: 'κ 0.00 is below 0.6' },
];

const check = (id: string, satisfied: boolean, required = false): CheckResult => ({
  id,
  satisfied,
  weight: 1,
  required,
  reasoning: null,
});

/** A checklist llm_judge as the run scores it: names-paris (required) not met, concise met. */
const facts = (name = 'facts'): EvaluatorResult => ({
  name,
  type: 'llm_judge',
  weight: 1,
  mode: 'checklist',
  score: 0.5,
  verdict: 'fail',
  checks: [check('names-paris', false, true), check('concise', true)],
  gating_violations: ['names-paris: required item not satisfied'],
});
const code = (name: string, score: number): EvaluatorResult => ({
  name,
  type: 'code_judge',
  weight: 1,
  score,
  verdict: score >= 0.8 ? 'pass' : 'fail',
  gating_violations: [],
});

const judgeConfig = (name: string, negate?: boolean) =>
  ({
    type: 'llm_judge',
    name,
    weight: 1,
    rubrics: null,
    prompt: null,
    ...(negate ? { negate } : {}),
  }) as unknown as EvaluatorConfig;
const codeConfig = (name: string) => ({ type: 'code_judge', name, weight: 1 }) as unknown as EvaluatorConfig;

function rescore(evaluators: EvaluatorResult[], configs: EvaluatorConfig[], verdict: CaseResult['verdict']) {
  const c: CaseResult = {
    id: 'c',
    verdict,
    score: 0,
    gating_violations: [],
    evaluators,
    target: null,
    answer: null,
    duration_ms: 1,
  };
  const loaded = [{ path: 's.yaml', cases: [{ id: 'c', evaluators: configs }] }] as unknown as EvalSuite[];
  const [suite] = applyAdvisory(
    [{ path: 's.yaml', description: null, cases: [c] }],
    loaded,
    ADVISORY,
    () => 0.8,
  );
  return suite!.cases[0]!;
}

test('a negated check keeps its negation: 1 - its score without the advisory check', () => {
  // Negated, the judge's 0.5 shows as 0.5 (fail); without names-paris its own score is 1, shown 0.
  const negated = negateResult({ ...facts('neg'), gating_violations: [] });
  expect(negated).toMatchObject({ score: 0.5, verdict: 'fail', negated: true });
  const c = rescore([negated], [judgeConfig('neg', true)], 'fail');
  expect(c.evaluators[0]).toMatchObject({ score: 0, verdict: 'fail', negated: true });
  expect(c.evaluators[0]!.checks![0]!.advisory).toBe('κ 0.00 is below 0.6');
});

test('all_or_nothing: 1 once the advisory check is left out of its child', () => {
  const combo: EvaluatorResult = {
    name: 'combo',
    type: 'composite',
    weight: 1,
    mode: 'aggregate',
    score: 0,
    verdict: 'fail',
    children: [facts(), code('x', 1)],
    reasoning: 'not met: facts',
    gating_violations: ['facts › names-paris: required item not satisfied'],
  };
  const config = {
    type: 'composite',
    name: 'combo',
    weight: 1,
    children: [judgeConfig('facts'), codeConfig('x')],
    aggregator: { type: 'all_or_nothing' },
  } as unknown as EvaluatorConfig;
  const c = rescore([combo], [config], 'fail');
  expect(c.evaluators[0]).toMatchObject({
    score: 1,
    verdict: 'pass',
    reasoning: 'every part met',
    gating_violations: [],
  });
  expect(c).toMatchObject({ verdict: 'pass', score: 1, gating_violations: [] });
});

test('an assert-set is passed again by its own threshold', () => {
  const set = (threshold: number): [EvaluatorResult, EvaluatorConfig] => [
    {
      name: 'set',
      type: 'composite',
      weight: 1,
      mode: 'aggregate',
      score: 0.65,
      verdict: 'fail',
      threshold,
      children: [facts(), code('x', 0.8)],
      gating_violations: ['facts › names-paris: required item not satisfied'],
    },
    {
      type: 'composite',
      name: 'set',
      weight: 1,
      children: [judgeConfig('facts'), codeConfig('x')],
      aggregator: { type: 'weighted_average', weights: {} },
      assertSet: { threshold },
    } as unknown as EvaluatorConfig,
  ];
  // (1 + 0.8) / 2 = 0.9: at a threshold of 0.9 the set passes, at 0.95 it does not.
  const [pass, passConfig] = set(0.9);
  expect(rescore([pass], [passConfig], 'fail').evaluators[0]).toMatchObject({ score: 0.9, verdict: 'pass' });
  const [short, shortConfig] = set(0.95);
  expect(rescore([short], [shortConfig], 'fail').evaluators[0]).toMatchObject({
    score: 0.9,
    verdict: 'fail',
    gating_violations: [],
  });
});

test('an errored case, or a case without the check, is left as it was', () => {
  const errored = rescore([facts()], [judgeConfig('facts')], 'error');
  expect(errored.evaluators[0]!.checks!.every((x) => x.advisory === undefined)).toBe(true);
  const other = rescore([code('x', 0.5)], [codeConfig('x')], 'fail');
  expect(other.verdict).toBe('fail');
});
