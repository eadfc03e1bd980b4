import { applyAdvisory } from '../../src/calibration/advisory.js';
import { type BelowFloor } from '../../src/core/calibration-results.js';
import { type CaseResult, type EvaluatorResult } from '../../src/core/results.js';
import { negateResult } from '../../src/evaluators/negate.js';
import { type EvalSuite, type EvaluatorConfig } from '../../src/suite/types.js';
import { advisory, check } from '../helpers/advisory.js';

// The rules each result above an advisory check is scored again by, on results as the run
// writes them: `names-paris` (required, not met) is advisory; `concise` is met.
// A check is addressed by the evaluator it was measured on (the names from the case down) and its id.

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

function rescore(
  evaluators: EvaluatorResult[],
  configs: EvaluatorConfig[],
  verdict: CaseResult['verdict'],
  below: BelowFloor[],
  scoring?: { threshold: number },
) {
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
  const loaded = [
    { path: 's.yaml', cases: [{ id: 'c', evaluators: configs, ...(scoring ? { scoring } : {}) }] },
  ] as unknown as EvalSuite[];
  const [suite] = applyAdvisory([{ path: 's.yaml', description: null, cases: [c] }], loaded, below, () => ({
    setting: 1,
    minRate: 0.8,
  }));
  return suite!.cases[0]!;
}

test('a negated check keeps its negation: 1 - its score without the advisory check', () => {
  // Negated, the judge's 0.5 shows as 0.5 (fail); without names-paris its own score is 1, shown 0.
  const negated = negateResult({ ...facts('neg'), gating_violations: [] });
  expect(negated).toMatchObject({ score: 0.5, verdict: 'fail', negated: true });
  const c = rescore([negated], [judgeConfig('neg', true)], 'fail', [advisory(['neg'])]);
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
  const c = rescore([combo], [config], 'fail', [advisory(['combo', 'facts'])]);
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
  expect(rescore([pass], [passConfig], 'fail', [advisory(['set', 'facts'])]).evaluators[0]).toMatchObject({
    score: 0.9,
    verdict: 'pass',
  });
  const [short, shortConfig] = set(0.95);
  expect(rescore([short], [shortConfig], 'fail', [advisory(['set', 'facts'])]).evaluators[0]).toMatchObject({
    score: 0.9,
    verdict: 'fail',
    gating_violations: [],
  });
});

test('an errored case, or a case without the check, is left as it was', () => {
  const errored = rescore([facts()], [judgeConfig('facts')], 'error', [advisory(['facts'])]);
  expect(errored.evaluators[0]!.checks!.every((x) => x.advisory === undefined)).toBe(true);
  const other = rescore([code('x', 0.5)], [codeConfig('x')], 'fail', [advisory(['facts'])]);
  expect(other.verdict).toBe('fail');
});

// Hostile review r4 (H1, H2, H3, H10): an evaluator left with no check that gates is no
// evidence; advisory applies to the one check of the one evaluator it was measured on.

test('H1: a negated judge whose every check is advisory is no evidence: it neither fails nor passes the case', () => {
  // `negate: true` ("must NOT mention a competitor"): the judge said not met, so it scores 1.
  const own: EvaluatorResult = {
    ...facts('no-competitor'),
    checks: [check('mentions', false)],
    gating_violations: [],
  };
  own.score = 0;
  const negated = negateResult(own);
  expect(negated).toMatchObject({ score: 1, verdict: 'pass' });
  const x = code('x', 1);
  const c = rescore([negated, x], [judgeConfig('no-competitor', true), codeConfig('x')], 'pass', [
    advisory(['no-competitor'], 'mentions'),
  ]);
  expect(c.evaluators[0]).toMatchObject({ score: 1, verdict: 'pass', negated: true });
  expect(c.evaluators[0]!.advisory).toMatch(/every check is advisory/);
  expect(c).toMatchObject({ verdict: 'pass', score: 1 });
});

test('H2: an all-advisory judge adds no synthetic 1.0: the case is decided by the code judge alone', () => {
  const notMet: EvaluatorResult = {
    ...facts(),
    score: 0,
    checks: [check('names-paris', false)],
    gating_violations: [],
  };
  const configs = [judgeConfig('facts'), codeConfig('tests')];
  const c = rescore([notMet, code('tests', 0.6)], configs, 'fail', [advisory(['facts'])]);
  expect(c.score).toBeCloseTo(0.6, 12);
  expect(c.verdict).toBe('borderline');
  // AgentV 5 scoring (a threshold): the same, by its own rule.
  const agentv = rescore([notMet, code('tests', 0.6)], configs, 'fail', [advisory(['facts'])], {
    threshold: 0.8,
  });
  expect(agentv).toMatchObject({ verdict: 'fail' });
  expect(agentv.score).toBeCloseTo(0.6, 12);
});

test('H2: inside a composite an all-advisory child weighs 0 in weighted_average, all_or_nothing and an assert-set', () => {
  const notMet: EvaluatorResult = {
    ...facts(),
    score: 0,
    checks: [check('names-paris', false)],
    gating_violations: [],
  };
  const composite = (aggregator: object, assertSet?: object): [EvaluatorResult, EvaluatorConfig] => [
    {
      name: 'combo',
      type: 'composite',
      weight: 1,
      mode: 'aggregate',
      score: 0.3,
      verdict: 'fail',
      children: [notMet, code('x', 0.6)],
      gating_violations: [],
    },
    {
      type: 'composite',
      name: 'combo',
      weight: 1,
      children: [judgeConfig('facts'), codeConfig('x')],
      aggregator,
      ...(assertSet ? { assertSet } : {}),
    } as unknown as EvaluatorConfig,
  ];
  const below = [advisory(['combo', 'facts'])];
  const [avg, avgConfig] = composite({ type: 'weighted_average', weights: {} });
  const a = rescore([avg], [avgConfig], 'fail', below).evaluators[0]!;
  expect(a.score).toBeCloseTo(0.6, 12);
  expect(a.reasoning).toBe('facts: advisory, not counted, x: 0.60');
  const [all, allConfig] = composite({ type: 'all_or_nothing' });
  expect(rescore([all], [allConfig], 'fail', below).evaluators[0]).toMatchObject({
    score: 0,
    reasoning: 'not met: x',
  });
  const [set, setConfig] = composite({ type: 'weighted_average', weights: {} }, { threshold: null });
  // The set passes when every child that counts passed: x (0.6) did not.
  expect(rescore([set], [setConfig], 'fail', below).evaluators[0]!.verdict).toBe('fail');
});

test("H1/H2: a case judged by advisory checks only is borderline with its judge's score (no synthetic pass, no fail)", () => {
  const met: EvaluatorResult = {
    ...facts(),
    score: 1,
    verdict: 'pass',
    checks: [check('names-paris', true)],
    gating_violations: [],
  };
  const passing = rescore([met], [judgeConfig('facts')], 'pass', [advisory(['facts'])]);
  expect(passing).toMatchObject({ verdict: 'borderline', score: 1, gating_violations: [] });
  const failing = rescore([facts()], [judgeConfig('facts')], 'fail', [
    advisory(['facts']),
    advisory(['facts'], 'concise'),
  ]);
  expect(failing).toMatchObject({ verdict: 'borderline', score: 0.5, gating_violations: [] });
  // The judge's own verdict is still shown (0.5 without its gates), marked as not counted.
  expect(failing.evaluators[0]).toMatchObject({ score: 0.5, verdict: 'fail', gating_violations: [] });
  expect(failing.evaluators[0]!.advisory).toBe(
    'every check is advisory: not counted in the score or verdict',
  );
  // A composite whose every part is advisory is itself no evidence.
  const combo: EvaluatorResult = {
    name: 'combo',
    type: 'composite',
    weight: 1,
    mode: 'aggregate',
    score: 1,
    verdict: 'pass',
    children: [met],
    gating_violations: [],
  };
  const config = {
    type: 'composite',
    name: 'combo',
    weight: 1,
    children: [judgeConfig('facts')],
    aggregator: { type: 'all_or_nothing' },
  } as unknown as EvaluatorConfig;
  const nested = rescore([combo, code('x', 0.4)], [config, codeConfig('x')], 'fail', [
    advisory(['combo', 'facts']),
  ]);
  expect(nested.evaluators[0]!.advisory).toMatch(/every part is advisory/);
  expect(nested).toMatchObject({ verdict: 'fail', score: 0.4 });
});

test("H3: two judges sharing the auto id rubric-1: advisory measured on one leaves the other's required item gating", () => {
  const tone: EvaluatorResult = {
    ...facts('tone'),
    score: 1,
    verdict: 'pass',
    checks: [check('rubric-1', true)],
    gating_violations: [],
  };
  const safety: EvaluatorResult = {
    ...facts('safety'),
    score: 0,
    checks: [check('rubric-1', false, true)],
    gating_violations: ['rubric-1: required item not satisfied'],
  };
  const combo: EvaluatorResult = {
    name: 'combo',
    type: 'composite',
    weight: 1,
    mode: 'aggregate',
    score: 0.5,
    verdict: 'fail',
    children: [tone, safety],
    gating_violations: ['safety › rubric-1: required item not satisfied'],
  };
  const config = {
    type: 'composite',
    name: 'combo',
    weight: 1,
    children: [judgeConfig('tone'), judgeConfig('safety')],
    aggregator: { type: 'weighted_average', weights: {} },
  } as unknown as EvaluatorConfig;
  const c = rescore([combo], [config], 'fail', [advisory(['combo', 'tone'], 'rubric-1')]);
  expect(c.verdict).toBe('fail');
  expect(c.gating_violations).toEqual(['combo › safety › rubric-1: required item not satisfied']);
  const [toneOut, safetyOut] = c.evaluators[0]!.children!;
  expect(toneOut!.checks![0]!.advisory).toBe('κ 0.00 is below 0.6');
  expect(safetyOut!.checks![0]!.advisory).toBeUndefined();
  // The same id at the top level (the case's inline rubric) is another check again.
  const top = rescore([{ ...safety, name: 'rubric' }], [judgeConfig('rubric')], 'fail', [
    advisory(['combo', 'tone'], 'rubric-1'),
  ]);
  expect(top.evaluators[0]!.checks![0]!.advisory).toBeUndefined();
});

test('H10: an advisory check `a` lifts only its own violation, not that of a check `a:b`', () => {
  const e: EvaluatorResult = {
    ...facts(),
    checks: [check('a', false, true), check('a:b', false, true)],
    gating_violations: ['a: required item not satisfied', 'a:b: required item not satisfied'],
  };
  const c = rescore([e], [judgeConfig('facts')], 'fail', [advisory(['facts'], 'a')]);
  expect(c.evaluators[0]!.gating_violations).toEqual(['a:b: required item not satisfied']);
  expect(c.verdict).toBe('fail');
});

test('repeats: answers judged by advisory checks only make a borderline case, not a fail by their pass rate', () => {
  const met: EvaluatorResult = {
    ...facts(),
    score: 1,
    verdict: 'pass',
    checks: [check('names-paris', true)],
    gating_violations: [],
  };
  const answer = (repeat: number) => ({
    repeat,
    verdict: 'pass' as const,
    score: 1,
    gating_violations: [],
    evaluators: [met],
    answer: 'Paris.',
  });
  const c: CaseResult = {
    id: 'c',
    verdict: 'pass',
    score: 1,
    gating_violations: [],
    evaluators: [met],
    target: null,
    answer: 'Paris.',
    duration_ms: 1,
    repeats: 3,
    answers: [answer(1), answer(2), answer(3)],
  };
  const loaded = [
    { path: 's.yaml', cases: [{ id: 'c', evaluators: [judgeConfig('facts')] }] },
  ] as unknown as EvalSuite[];
  const [suite] = applyAdvisory(
    [{ path: 's.yaml', description: null, cases: [c] }],
    loaded,
    [advisory(['facts'])],
    () => ({ setting: 3, minRate: 0.8 }),
  );
  const out = suite!.cases[0]!;
  expect(out.verdict).toBe('borderline');
  expect(out.answers!.map((a) => a.verdict)).toEqual(['borderline', 'borderline', 'borderline']);
});
