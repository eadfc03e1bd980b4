import { changeOf, type Graded, stillFailing } from '../../src/baseline/change.js';

const g = (verdict: Graded['verdict'], score: number, definition_hash: string | null = 'h1'): Graded => ({
  verdict,
  score,
  definition_hash,
});

describe('the change table, in its order of precedence (the first row that applies wins)', () => {
  test('new: no case with that key in the baseline, whatever the case did', () => {
    expect(changeOf(undefined, g('fail', 0), 0.1)).toBe('new');
    expect(changeOf(undefined, g('pass', 1), 0.1)).toBe('new');
  });

  test('redefined beats every verdict change: a different definition is not comparable', () => {
    expect(changeOf(g('pass', 1, 'aaa'), g('fail', 0, 'bbb'), 0.1)).toBe('redefined');
    expect(changeOf(g('fail', 0, 'aaa'), g('pass', 1, 'bbb'), 0.1)).toBe('redefined');
    expect(changeOf(g('pass', 1, 'aaa'), g('pass', 1, 'bbb'), 0.1)).toBe('redefined');
  });

  test('a hash missing on either side is compared, not called redefined', () => {
    expect(changeOf(g('pass', 1, null), g('fail', 0, 'bbb'), 0.1)).toBe('broken');
    expect(changeOf(g('pass', 1, 'aaa'), g('pass', 1, null), 0.1)).toBe('same');
  });

  test('broken: pass or borderline before, fail or error now; it beats regressed', () => {
    expect(changeOf(g('pass', 1), g('fail', 0.2), 0.1)).toBe('broken');
    expect(changeOf(g('borderline', 0.7), g('error', 0), 0.1)).toBe('broken');
    // A tiny drop across the line is still broken, not regressed or same.
    expect(changeOf(g('borderline', 0.6), g('fail', 0.59), 0.1)).toBe('broken');
  });

  test('fixed: fail or error before, pass or borderline now; it beats improved', () => {
    expect(changeOf(g('fail', 0.2), g('pass', 1), 0.1)).toBe('fixed');
    expect(changeOf(g('error', 0), g('borderline', 0.65), 0.1)).toBe('fixed');
  });

  test('regressed: a drop larger than the margin, or pass to borderline by any amount', () => {
    expect(changeOf(g('pass', 1), g('pass', 0.85), 0.1)).toBe('regressed');
    expect(changeOf(g('pass', 0.8), g('borderline', 0.79), 0.1)).toBe('regressed');
    expect(changeOf(g('fail', 0.5), g('fail', 0.2), 0.1)).toBe('regressed');
  });

  test('improved: a rise larger than the margin, or borderline to pass by any amount', () => {
    expect(changeOf(g('pass', 0.85), g('pass', 1), 0.1)).toBe('improved');
    expect(changeOf(g('borderline', 0.79), g('pass', 0.8), 0.1)).toBe('improved');
    expect(changeOf(g('fail', 0.1), g('fail', 0.5), 0.1)).toBe('improved');
  });

  test('same otherwise; a case failing on both sides is same ("still failing")', () => {
    expect(changeOf(g('pass', 1), g('pass', 1), 0.1)).toBe('same');
    expect(changeOf(g('fail', 0.3), g('error', 0.3), 0.1)).toBe('same');
    expect(stillFailing('error', 'fail', 'same')).toBe(true);
    expect(stillFailing('pass', 'pass', 'same')).toBe(false);
    expect(stillFailing('fail', 'fail', 'regressed')).toBe(false);
    expect(stillFailing('fail', null, 'new')).toBe(false);
  });
});

describe('the margin boundary: a drop (or rise) of exactly regression-margin is same', () => {
  // Pairs whose float difference lands on either side of the margin (0.8 - 0.7 = 0.10000000000000009).
  const pairs: [number, number][] = [
    [1, 0.9],
    [0.9, 0.8],
    [0.8, 0.7],
    [0.7, 0.6],
    [0.3, 0.2],
    [0.95, 0.85],
  ];
  test.each(pairs)('%p → %p with margin 0.1 is same, both ways', (from, to) => {
    expect(changeOf(g('fail', from), g('fail', to), 0.1)).toBe('same');
    expect(changeOf(g('fail', to), g('fail', from), 0.1)).toBe('same');
  });

  test('just past the margin is regressed or improved', () => {
    expect(changeOf(g('fail', 0.5), g('fail', 0.3999), 0.1)).toBe('regressed');
    expect(changeOf(g('fail', 0.3999), g('fail', 0.5), 0.1)).toBe('improved');
  });

  test('other margins: 0 makes any move count, 0.25 boundary is same', () => {
    expect(changeOf(g('pass', 1), g('pass', 0.99), 0)).toBe('regressed');
    expect(changeOf(g('pass', 0.9), g('pass', 0.9), 0)).toBe('same');
    expect(changeOf(g('fail', 0.5), g('fail', 0.25), 0.25)).toBe('same');
    expect(changeOf(g('fail', 0.5), g('fail', 0.2499), 0.25)).toBe('regressed');
  });

  test('a case only advisory checks judged (judge calibration) is no evidence: no change blamed on it, none measured from it', () => {
    const advisoryOnly: Graded = { ...g('borderline', 0.2), advisory_only: true };
    expect(changeOf(g('pass', 1), advisoryOnly, 0.1)).toBe('same');
    expect(changeOf(advisoryOnly, g('fail', 0), 0.1)).toBe('new');
  });

  test('pass to borderline regresses even inside the margin; borderline to pass improves', () => {
    expect(changeOf(g('pass', 0.8), g('borderline', 0.7999), 0.5)).toBe('regressed');
    expect(changeOf(g('borderline', 0.7999), g('pass', 0.8), 0.5)).toBe('improved');
  });
});
