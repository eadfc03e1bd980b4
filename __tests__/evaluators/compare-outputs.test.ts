import { type CaseResult, type EvaluatorResult } from '../../src/core/results.js';
import {
  beforeComparison,
  foldComparison,
  maxScoreAggregate,
  maxScoreOutcomes,
  selectBestOutcomes,
} from '../../src/evaluators/compare-outputs.js';
import { type MaxScoreConfig } from '../../src/suite/types.js';

/** promptfoo 0.121's select-best and max-score rules (src/matchers/comparison.ts, evaluator.ts). */

const ev = (name: string, score: number, over: Partial<EvaluatorResult> = {}): EvaluatorResult => ({
  name,
  type: 'text_assertion',
  weight: 1,
  score,
  verdict: score >= 1 ? 'pass' : 'fail',
  gating_violations: [],
  ...over,
});

const kase = (over: Partial<CaseResult> = {}): CaseResult => ({
  id: 'c',
  verdict: 'pass',
  score: 0.75,
  gating_violations: [],
  evaluators: [ev('contains-1', 1), ev('javascript-2', 0.5)],
  target: null,
  answer: 'Paris',
  duration_ms: 1,
  ...over,
});

const maxScore = (over: Partial<MaxScoreConfig> = {}): MaxScoreConfig => ({
  parts: [
    { at: [0], path: ['contains-1'], weight: 1 },
    { at: [1], path: ['javascript-2'], weight: 1 },
  ],
  method: 'average',
  name: 'max-score-3',
  threshold: null,
  ...over,
});

describe('select-best', () => {
  test("the judge's pick passes with 1, every other sibling fails with 0 and names the pick", () => {
    const out = selectBestOutcomes(1, ['t__prompt_a', 't__prompt_b', 't__prompt_c'], 'names the country');
    expect(out.map((o) => [o.verdict, o.score])).toEqual([
      ['fail', 0],
      ['pass', 1],
      ['fail', 0],
    ]);
    expect(out[0]!.reason).toBe('the judge picked t__prompt_b over this answer for: names the country');
    expect(out[1]!.reason).toBe('picked as the answer that best meets: names the country');
  });

  test('an index outside the siblings is an error for every one, naming it (never a pass)', () => {
    for (const chosen of [2, -1, 0.5]) {
      const out = selectBestOutcomes(chosen, ['a', 'b'], 'x');
      expect(out.map((o) => o.verdict)).toEqual(['error', 'error']);
      expect(out[0]!.reason).toBe(`select-best: the judge picked answer ${chosen}, and there are 2 (0 to 1)`);
    }
  });
});

describe('max-score', () => {
  test('the aggregate: average or sum of the other scores, weighted by assertion type (not by `weight`)', () => {
    const results = [ev('contains-1', 1, { weight: 5 }), ev('javascript-2', 0.5)];
    expect(maxScoreAggregate(maxScore(), results)).toBeCloseTo(0.75, 9);
    const weighted = maxScore({
      parts: [
        { at: [0], path: ['contains-1'], weight: 2 },
        { at: [1], path: ['javascript-2'], weight: 1 },
      ],
    });
    expect(maxScoreAggregate(weighted, results)).toBeCloseTo(2.5 / 3, 9);
    expect(maxScoreAggregate({ ...weighted, method: 'sum' }, results)).toBeCloseTo(2.5, 9);
    // Weights summing to 0 average to 0, as promptfoo's guard does.
    const zero = maxScore({ parts: [{ at: [0], path: ['contains-1'], weight: 0 }] });
    expect(maxScoreAggregate(zero, results)).toBe(0);
  });

  test("an assert-set's children count, found by their path; a part that errored or is missing decides nothing", () => {
    const set = ev('assert-set-1', 0.5, {
      type: 'composite',
      children: [ev('contains-1', 1), ev('equals-2', 0)],
    });
    const parts = maxScore({
      parts: [
        { at: [0, 0], path: ['assert-set-1', 'contains-1'], weight: 1 },
        { at: [0, 1], path: ['assert-set-1', 'equals-2'], weight: 3 },
      ],
    });
    expect(maxScoreAggregate(parts, [set])).toBeCloseTo(0.25, 9);
    expect(maxScoreAggregate(maxScore(), [ev('contains-1', 0, { verdict: 'error' })])).toBe(
      'contains-1 errored',
    );
    expect(maxScoreAggregate(maxScore(), [ev('contains-1', 1)])).toBe('javascript-2 has no result');
  });

  test('each part is the result at its position, also when two results share a name (one weighed once each)', () => {
    const parts = maxScore({
      parts: [
        { at: [0], path: ['contains-1'], weight: 1 },
        { at: [1], path: ['contains-1'], weight: 1 },
      ],
    });
    // By name, the first `contains-1` was found twice: 1, not the 0.5 promptfoo gives.
    expect(maxScoreAggregate(parts, [ev('contains-1', 1), ev('contains-1', 0)])).toBeCloseTo(0.5, 9);
    // A result at that position under another name is no result (never another evaluator's score).
    expect(maxScoreAggregate(maxScore(), [ev('javascript-2', 0.5), ev('contains-1', 1)])).toBe(
      'contains-1 has no result',
    );
  });

  test('the first highest wins (a tie goes to the first); the others fail with 0 and say the best', () => {
    const out = maxScoreOutcomes([0.5, 0.8, 0.8], null, ['a', 'b', 'c']);
    expect(out.map((o) => [o.verdict, o.score])).toEqual([
      ['fail', 0],
      ['pass', 1],
      ['fail', 0],
    ]);
    expect(out[0]!.reason).toBe('scored 0.500; b scored 0.800');
    expect(out[1]!.reason).toBe("the highest score of the test's answers (0.800)");
    expect(out[2]!.reason).toBe('scored 0.800; b scored 0.800');
  });

  test('below the threshold no sibling passes; at it (within float noise) the best does', () => {
    const below = maxScoreOutcomes([0.4, 0.2], 0.5, ['a', 'b']);
    expect(below.map((o) => o.verdict)).toEqual(['fail', 'fail']);
    expect(below[0]!.reason).toBe("the highest score (0.400), below max-score's threshold 0.5");
    expect(below[1]!.reason).toBe('scored 0.200; a scored 0.400');
    const at = maxScoreOutcomes([0.1 + 0.2, 0], 0.3, ['a', 'b']);
    expect(at.map((o) => o.verdict)).toEqual(['pass', 'fail']);
  });
});

describe('folding into a sibling, as promptfoo merges it', () => {
  const pass = { verdict: 'pass' as const, score: 1, reason: 'picked' };
  const fail = { verdict: 'fail' as const, score: 0, reason: 'not picked' };
  const error = { verdict: 'error' as const, score: 0, reason: 'not decided: b has no answer' };

  test('a pass keeps the verdict and the score; it is shown with weight 0', () => {
    const c = foldComparison(kase(), 'select-best-3', pass, null);
    expect([c.verdict, c.score]).toEqual(['pass', 0.75]);
    expect(c.evaluators.at(-1)).toEqual({
      name: 'select-best-3',
      type: 'comparison',
      weight: 0,
      score: 1,
      verdict: 'pass',
      reasoning: 'picked',
      gating_violations: [],
    });
    // A winner whose own assertions failed still fails.
    expect(foldComparison(kase({ verdict: 'fail', score: 0.4 }), 'm', pass, null).verdict).toBe('fail');
  });

  test('a fail fails the case and sets its score to 0, whatever it scored', () => {
    const c = foldComparison(kase({ score: 0.9 }), 'max-score-3', fail, null);
    expect([c.verdict, c.score]).toEqual(['fail', 0]);
    expect(c.evaluators.at(-1)!.misses).toEqual(['not picked']);
  });

  test('an undecided comparison makes the case an error; a case already error or skipped stays so', () => {
    const c = foldComparison(kase(), 'm', error, null);
    expect(c.verdict).toBe('error');
    expect(c.evaluators.at(-1)!.error).toBe('not decided: b has no answer');
    expect(foldComparison(kase({ verdict: 'error', score: 0 }), 'm', pass, null).verdict).toBe('error');
    expect(foldComparison(kase({ verdict: 'skipped', score: 0 }), 'm', fail, null).verdict).toBe('skipped');
  });

  test('a test whose only assertions compare scores 0 before comparing: its winner passes with 0', () => {
    const only = kase({ evaluators: [], score: 1 });
    expect(beforeComparison(only, 0, null)).toEqual({ verdict: 'pass', score: 0 });
    expect(beforeComparison(only, 0, 0.5)).toEqual({ verdict: 'fail', score: 0 });
    expect(beforeComparison(only, 0, 0)).toEqual({ verdict: 'pass', score: 0 });
    expect(beforeComparison(kase(), 2, null)).toMatchObject({ verdict: 'pass', score: 0.75 });
  });
});
