import { changeOf } from '../../src/baseline/change.js';
import { fisherExactP, passCountOf, rateChange } from '../../src/baseline/rate-change.js';

// Reference: scipy 1.17 stats.fisher_exact([[a, n1 - a], [b, n2 - b]]) (two-sided).
const FISHER: [a: number, n1: number, b: number, n2: number, p: number][] = [
  [5, 5, 1, 5, 0.0476190476],
  [3, 5, 1, 5, 0.5238095238],
  [20, 20, 10, 20, 0.0004359198],
  [14, 14, 8, 14, 0.015942029],
  [3, 5, 4, 5, 1],
  [1, 1, 0, 1, 1],
  [9, 10, 3, 10, 0.0197666111],
  [10, 20, 19, 20, 0.0033420517],
  [0, 5, 5, 5, 0.0079365079],
];

test.each(FISHER)('Fisher exact: %i/%i vs %i/%i has p = %p', (a, n1, b, n2, p) => {
  expect(fisherExactP({ passed: a, answers: n1 }, { passed: b, answers: n2 })).toBeCloseTo(p, 9);
  // The test is symmetric in its two sides.
  expect(fisherExactP({ passed: b, answers: n2 }, { passed: a, answers: n1 })).toBeCloseTo(p, 9);
});

describe('rateChange: regressed or improved only at the 5% level', () => {
  test('9/10 → 3/10 regressed (p 0.020); 3/5 → 1/5 same (p 0.52)', () => {
    expect(rateChange({ passed: 9, answers: 10 }, { passed: 3, answers: 10 })).toBe('regressed');
    expect(rateChange({ passed: 3, answers: 5 }, { passed: 1, answers: 5 })).toBe('same');
  });

  test('10/20 → 19/20 improved; 5/5 → 1/5 regressed at p 0.048, just under the line', () => {
    expect(rateChange({ passed: 10, answers: 20 }, { passed: 19, answers: 20 })).toBe('improved');
    expect(rateChange({ passed: 5, answers: 5 }, { passed: 1, answers: 5 })).toBe('regressed');
  });
});

describe('changeOf with repeats on either side', () => {
  const side = (verdict: 'pass' | 'fail' | 'inconclusive', passed: number, repeats: number) => ({
    verdict,
    score: passed / repeats,
    repeats,
    pass_rate: passed / repeats,
  });

  test('a rate drop the test cannot tell from noise is `same`, even past the score margin', () => {
    // 4/5 → 2/5: the mean score fell 0.4 (> margin 0.1), but p = 0.52.
    expect(changeOf(side('inconclusive', 4, 5), side('inconclusive', 2, 5), 0.1)).toBe('same');
  });

  test('a real drop is `regressed`; verdicts still decide broken and fixed first', () => {
    expect(changeOf(side('inconclusive', 12, 13), side('inconclusive', 6, 13), 0.1)).toBe('regressed');
    expect(changeOf(side('pass', 14, 14), side('fail', 2, 6), 0.1)).toBe('broken');
    expect(changeOf(side('fail', 0, 2), side('pass', 14, 14), 0.1)).toBe('fixed');
  });

  test('inconclusive is neither passing nor failing: inconclusive → fail is decided on the rates', () => {
    expect(changeOf(side('inconclusive', 10, 14), side('fail', 0, 2), 0.1)).toBe('same');
    expect(changeOf(side('inconclusive', 13, 14), side('fail', 1, 8), 0.1)).toBe('regressed');
  });

  test('a base judged on one answer counts as one answer', () => {
    expect(passCountOf({ verdict: 'pass' })).toEqual({ passed: 1, answers: 1 });
    expect(changeOf({ verdict: 'pass', score: 1 }, side('inconclusive', 17, 20), 0.1)).toBe('same');
  });

  test('without repeats the score margin rules as before', () => {
    expect(changeOf({ verdict: 'pass', score: 1 }, { verdict: 'pass', score: 0.85 }, 0.1)).toBe('regressed');
  });
});
