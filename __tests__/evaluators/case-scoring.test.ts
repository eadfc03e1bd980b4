import { negateResult } from '../../src/evaluators/negate.js';
import { type EvaluatorResult } from '../../src/core/results.js';
import { aggregateByThreshold, aggregateCase, scoreCase } from '../../src/evaluators/case-scoring.js';
import { DEFAULT_TEST_THRESHOLD } from '../../src/suite/agentv5/tests-format.js';
import { type EvaluatorConfig } from '../../src/suite/types.js';

const pos = { line: 1, column: 1 };
const cfg = (name: string, weight = 1, extra: Partial<EvaluatorConfig> = {}): EvaluatorConfig =>
  ({
    type: 'text_assertion',
    check: 'contains',
    values: ['x'],
    flags: null,
    schema: null,
    name,
    weight,
    pos,
    ...extra,
  }) as EvaluatorConfig;
const res = (name: string, score: number, weight = 1): EvaluatorResult => ({
  name,
  type: 'text_assertion',
  weight,
  score,
  verdict: score >= 0.8 ? 'pass' : 'fail',
  gating_violations: [],
});

describe('AgentV 5 test scoring', () => {
  test('the default threshold is 0.8, inclusive', () => {
    expect(DEFAULT_TEST_THRESHOLD).toBe(0.8);
    const configs = [cfg('a', 4), cfg('b', 1)];
    expect(aggregateByThreshold(configs, [res('a', 1, 4), res('b', 0)], 0.8)).toMatchObject({
      score: 0.8,
      verdict: 'pass',
    });
    expect(aggregateByThreshold(configs, [res('a', 1, 3), res('b', 0, 2)], 0.8)).toMatchObject({
      score: 0.6,
      verdict: 'fail',
    });
  });

  test('weights: the weighted mean, weight 0 left out; no borderline verdict', () => {
    const r = aggregateByThreshold(
      [cfg('a', 3), cfg('b', 1), cfg('c', 0)],
      [res('a', 1, 3), res('b', 0, 1), res('c', 0, 0)],
      0.5,
    );
    expect(r).toMatchObject({ score: 0.75, verdict: 'pass' });
    expect(aggregateByThreshold([cfg('a')], [res('a', 0.7)], 0.8).verdict).toBe('fail');
  });

  test('a required assertion below the threshold zeroes the test', () => {
    const r = aggregateByThreshold(
      [cfg('must', 1, { required: true }), cfg('b', 9)],
      [res('must', 0.5), res('b', 1, 9)],
      0.8,
    );
    expect(r.score).toBe(0);
    expect(r.verdict).toBe('fail');
    expect(r.gating_violations[0]).toMatch(/^must: required, scored 0.50 < 0.8/);
  });

  test('a required assertion is measured against its min_score when given', () => {
    const configs = [cfg('must', 1, { required: true, minScore: 0.4 }), cfg('b')];
    expect(aggregateByThreshold(configs, [res('must', 0.5), res('b', 1)], 0.7)).toMatchObject({
      score: 0.75,
      verdict: 'pass',
    });
  });

  test("an assert-set's own verdict never decides the test: its score does, against the test's threshold", () => {
    // AgentV 5: the set passes by its own threshold (its promptfoo-assertions.test.ts, "uses
    // threshold to override child assertion pass/fail status"); the test by its weighted score
    // (orchestrator.ts: classifyQualityStatus(score, threshold)).
    const set = (verdict: 'pass' | 'fail'): EvaluatorResult => ({
      name: 'location',
      type: 'composite',
      weight: 1,
      score: 0.5,
      verdict,
      threshold: verdict === 'pass' ? 0.5 : 1,
      gating_violations: [],
    });
    const configs = [cfg('location')];
    expect(aggregateByThreshold(configs, [set('pass')], 0.5)).toMatchObject({ score: 0.5, verdict: 'pass' });
    expect(aggregateByThreshold(configs, [set('pass')], 0.8)).toMatchObject({ score: 0.5, verdict: 'fail' });
    expect(aggregateByThreshold(configs, [set('fail')], 0.5)).toMatchObject({ score: 0.5, verdict: 'pass' });
  });

  test('an evaluator error makes the test an error, never a pass', () => {
    const err: EvaluatorResult = { ...res('a', 0), verdict: 'error', error: 'boom' };
    expect(aggregateByThreshold([cfg('a'), cfg('b')], [err, res('b', 1)], 0).verdict).toBe('error');
  });

  test('scoreCase uses the loaded case’s rule: v2 cases keep pass/borderline/fail', () => {
    const results = [res('a', 0.7)];
    expect(scoreCase({ evaluators: [cfg('a')] }, results).verdict).toBe('borderline');
    expect(
      scoreCase({ evaluators: [cfg('a')], scoring: { kind: 'threshold', threshold: 0.8 } }, results).verdict,
    ).toBe('fail');
    expect(
      scoreCase({ evaluators: [cfg('a')], scoring: { kind: 'threshold', threshold: 0.6 } }, results).verdict,
    ).toBe('pass');
  });

  test('negate: 1 - score, pass and fail swap; an error stays an error', () => {
    expect(negateResult({ ...res('a', 1), hits: ['output contains "x"'], misses: [] })).toMatchObject({
      score: 0,
      verdict: 'fail',
      negated: true,
    });
    expect(negateResult(res('a', 0))).toMatchObject({ score: 1, verdict: 'pass' });
    const err: EvaluatorResult = { ...res('a', 0), verdict: 'error' };
    expect(negateResult(err).verdict).toBe('error');
  });
});

const ev = (over: Partial<EvaluatorResult>): EvaluatorResult => ({
  name: 'e',
  type: 'llm_judge',
  weight: 1,
  score: 1,
  verdict: 'pass',
  gating_violations: [],
  ...over,
});

describe('case aggregation', () => {
  test('weighted mean by evaluator weight; weight 0 excludes', () => {
    const r = aggregateCase([
      ev({ name: 'a', score: 0.5, weight: 3 }),
      ev({ name: 'b', score: 1, weight: 1 }),
      ev({ name: 'c', score: 0, weight: 0 }),
    ]);
    expect(r.score).toBeCloseTo(0.625, 12);
    expect(r.verdict).toBe('borderline');
  });
  test('every evaluator at weight 0: nothing is counted, the case scores 0 and fails (AgentV orchestrator)', () => {
    const r = aggregateCase([
      ev({ name: 'a', score: 0.8, weight: 0 }),
      ev({ name: 'b', score: 1, weight: 0 }),
    ]);
    expect(r.score).toBe(0);
    expect(r.verdict).toBe('fail');
  });
  test('the corpus baseline: rubric 0.5 + code judge 1.0 = 0.75, but a gating violation fails the case', () => {
    const r = aggregateCase([
      ev({
        name: 'rubric',
        score: 0.5,
        verdict: 'fail',
        gating_violations: ['rubric-2: required item not satisfied'],
      }),
      ev({ name: 'python_syntax', type: 'code_judge', score: 1 }),
    ]);
    expect(r.score).toBe(0.75);
    expect(r.verdict).toBe('fail');
    expect(r.gating_violations).toEqual(['rubric-2: required item not satisfied']);
  });
  test('violations of other evaluators are named by evaluator', () => {
    const r = aggregateCase([ev({ name: 'judge', gating_violations: ['x: required item not satisfied'] })]);
    expect(r.gating_violations).toEqual(['judge › x: required item not satisfied']);
  });
  test('an errored evaluator makes the case an error whatever the score', () => {
    expect(
      aggregateCase([ev({ score: 1 }), ev({ name: 'x', score: 0, verdict: 'error', error: 'boom' })]).verdict,
    ).toBe('error');
  });
});

describe("promptfoo's test verdict (promptfoo-shaped suites)", () => {
  const pf = (threshold: number | null) => ({ kind: 'promptfoo' as const, threshold });
  const score = (threshold: number | null, results: EvaluatorResult[]) =>
    scoreCase({ scoring: pf(threshold), evaluators: results.map((r) => cfg(r.name, r.weight)) }, results);

  test('every assertion must pass: 4 of 5 passing fails at 0.8, where the mean rule passes', () => {
    const r = [res('a', 1), res('b', 1), res('c', 1), res('d', 1), res('e', 0)];
    expect(score(null, r)).toEqual({ score: 0.8, verdict: 'fail', gating_violations: [] });
  });

  test('a passing rubric scored 0.5 beside a passing check passes (its verdict, not its score)', () => {
    const rubric: EvaluatorResult = { ...res('rubric', 0.5), verdict: 'pass' };
    expect(score(null, [res('a', 1), rubric])).toEqual({
      score: 0.75,
      verdict: 'pass',
      gating_violations: [],
    });
  });

  test('a test threshold decides by the weighted score, whatever failed; 0 is a threshold too', () => {
    expect(score(0.5, [res('a', 1), res('b', 0)]).verdict).toBe('pass');
    expect(score(0.75, [res('a', 1), res('b', 0)]).verdict).toBe('fail');
    expect(score(0, [res('a', 0)]).verdict).toBe('pass');
  });

  test('a failing assertion of weight 0 counts for nothing, in the score or the verdict (promptfoo 0.121)', () => {
    expect(score(null, [res('a', 1), res('b', 0, 0)])).toEqual({
      score: 1,
      verdict: 'pass',
      gating_violations: [],
    });
  });

  test('no assertions: a pass at 1; an errored assertion: an error', () => {
    expect(scoreCase({ scoring: pf(null), evaluators: [] }, [])).toEqual({
      score: 1,
      verdict: 'pass',
      gating_violations: [],
    });
    expect(score(null, [res('a', 1), { ...res('b', 0), verdict: 'error' }]).verdict).toBe('error');
  });
});
