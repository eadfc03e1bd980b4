import { MAX_REPEATS } from '../../src/core/repeat-setting.js';
import {
  answersToExclude,
  caseVerdict,
  binomialCdf,
  passRateBounds,
  rateVerdict,
  stillDecidable,
  wantsAnotherAnswer,
} from '../../src/evaluators/pass-rate.js';

// Reference: scipy 1.17 — lower = beta.ppf(a, k, n-k+1), upper = beta.ppf(1-a, k+1, n-k), a = 0.05.
const ONE_SIDED_95: [k: number, n: number, low: number, high: number][] = [
  [0, 1, 0, 0.95],
  [0, 2, 0, 0.7763932023],
  [0, 3, 0, 0.6315968501],
  [1, 5, 0.0102062183, 0.657408318],
  [3, 5, 0.1892553774, 0.9235596086],
  [4, 5, 0.342591682, 0.9897937817],
  [13, 14, 0.7032657611, 0.9963428968],
  [14, 14, 0.8073638243, 1],
  [19, 20, 0.7838938358, 0.9974386212],
  [20, 20, 0.8608916593, 1],
  [10, 20, 0.3019539113, 0.6980460887],
  [7, 20, 0.1773109176, 0.5580345113],
];

// The same at a = 0.025: the textbook two-sided 95% intervals (R's binom.test gives the same).
const TWO_SIDED_95: [k: number, n: number, low: number, high: number][] = [
  [5, 10, 0.1870860284, 0.8129139716],
  [19, 20, 0.7512672372, 0.9987349105],
  [7, 20, 0.1539092048, 0.5921885345],
];

describe('exact (Clopper–Pearson) bounds', () => {
  test.each(ONE_SIDED_95)('%i of %i: one-sided 95%% bounds as scipy computes them', (k, n, low, high) => {
    const b = passRateBounds(k, n);
    expect(b.low).toBeCloseTo(low, 8);
    expect(b.high).toBeCloseTo(high, 8);
  });

  test.each(TWO_SIDED_95)('%i of %i at alpha 0.025: the two-sided 95%% interval', (k, n, low, high) => {
    const b = passRateBounds(k, n, 0.025);
    expect(b.low).toBeCloseTo(low, 8);
    expect(b.high).toBeCloseTo(high, 8);
  });

  test('the closed forms at the ends: all passing alpha^(1/n), none 1 - alpha^(1/n)', () => {
    for (let n = 1; n <= MAX_REPEATS; n++) {
      expect(passRateBounds(n, n).low).toBeCloseTo(0.05 ** (1 / n), 10);
      expect(passRateBounds(0, n).high).toBeCloseTo(1 - 0.05 ** (1 / n), 10);
    }
  });

  test('the binomial tail sums to 1 and matches a hand count', () => {
    // P(X ≤ 1 | 3, 0.5) = (1 + 3) / 8
    expect(binomialCdf(1, 3, 0.5)).toBeCloseTo(0.5, 12);
    expect(binomialCdf(20, 20, 0.3)).toBe(1);
    expect(binomialCdf(-1, 20, 0.3)).toBe(0);
  });
});

describe('the verdict from the bounds (min rate 0.8)', () => {
  test('pass exactly when the lower bound reaches the rate, fail when the upper is below it', () => {
    for (let n = 1; n <= MAX_REPEATS; n++)
      for (let k = 0; k <= n; k++) {
        const { low, high } = passRateBounds(k, n);
        const v = rateVerdict(k, n, 0.8);
        // Away from the edge (bisection noise), the bounds and the tail test agree.
        if (Math.abs(low - 0.8) > 1e-9 && Math.abs(high - 0.8) > 1e-9)
          expect(v).toBe(low >= 0.8 ? 'pass' : high < 0.8 ? 'fail' : 'inconclusive');
      }
  });

  test('14 of 14 is the first run of passes to pass; 13 of 13 is not yet', () => {
    expect(rateVerdict(13, 13, 0.8)).toBe('inconclusive');
    expect(rateVerdict(14, 14, 0.8)).toBe('pass');
    expect(rateVerdict(19, 20, 0.8)).toBe('inconclusive');
  });

  test('two failures fail; one does not', () => {
    expect(rateVerdict(0, 1, 0.8)).toBe('inconclusive');
    expect(rateVerdict(0, 2, 0.8)).toBe('fail');
    expect(rateVerdict(1, 5, 0.8)).toBe('fail');
  });
});

describe('the auto stopping rule', () => {
  test('asks again while undecided and still decidable; stops at a verdict, at 20, or when 20 cannot decide', () => {
    expect(wantsAnotherAnswer(0, 0, 0.8)).toBe(true);
    expect(wantsAnotherAnswer(1, 1, 0.8)).toBe(true);
    expect(wantsAnotherAnswer(14, 14, 0.8)).toBe(false); // pass
    expect(wantsAnotherAnswer(0, 2, 0.8)).toBe(false); // fail
    expect(wantsAnotherAnswer(15, 20, 0.8)).toBe(false); // the cap
    // 15 of 18: two more passes give 17/20 (not a pass), two more failures 15/20 (not a fail).
    expect(stillDecidable(15, 18, 0.8)).toBe(false);
    expect(wantsAnotherAnswer(15, 18, 0.8)).toBe(false);
    // 3 of 4: all failing from here reaches a fail.
    expect(stillDecidable(3, 4, 0.8)).toBe(true);
  });

  /**
   * The rule's exact operating characteristics: every sequence of answers up to 20, weighted by its
   * probability. Reference: the same rule written independently in Python with scipy.stats.binom
   * (sf / cdf for the verdicts), summed over the same tree.
   */
  const REFERENCE: [p: number, pass: number, fail: number, inconclusive: number, answers: number][] = [
    [1, 1, 0, 0, 14],
    [0.95, 0.48767498, 0.00288411, 0.50944091, 14.158908],
    [0.8, 0.04398047, 0.11083181, 0.84518773, 14.968606],
    [0.5, 0.00006104, 0.91334343, 0.08659554, 8.352222],
    [0.2, 0, 0.99999161, 0.00000839, 3.184595],
    [0, 0, 1, 0, 2],
  ];

  function exactOutcomes(p: number) {
    const out = { pass: 0, fail: 0, inconclusive: 0, answers: 0 };
    let states = new Map<number, number>([[0, 1]]); // passes so far → probability
    for (let n = 0; states.size > 0; n++) {
      const next = new Map<number, number>();
      for (const [k, prob] of states) {
        if (!wantsAnotherAnswer(k, n, 0.8)) {
          const v = rateVerdict(k, n, 0.8);
          out[v] += prob;
          out.answers += prob * n;
          continue;
        }
        if (p > 0) next.set(k + 1, (next.get(k + 1) ?? 0) + prob * p);
        if (p < 1) next.set(k, (next.get(k) ?? 0) + prob * (1 - p));
      }
      states = next;
    }
    return out;
  }

  test.each(REFERENCE)(
    'true rate %p: pass %p, fail %p, inconclusive %p, %p answers on average',
    (p, pass, fail, inc, answers) => {
      const o = exactOutcomes(p);
      expect(o.pass).toBeCloseTo(pass, 7);
      expect(o.fail).toBeCloseTo(fail, 7);
      expect(o.inconclusive).toBeCloseTo(inc, 7);
      expect(o.answers).toBeCloseTo(answers, 5);
    },
  );

  test('the four promised properties hold exactly, not just in simulation', () => {
    expect(exactOutcomes(0.5).pass).toBeLessThanOrEqual(0.05);
    expect(exactOutcomes(0.95).fail).toBeLessThanOrEqual(0.05);
  });
});

describe('the case verdict: a fixed repeat reads the observed rate, auto the evidence (README, repeats)', () => {
  const fixed = (n: number, minRate = 0.8) => ({ setting: n, minRate });
  const auto = (minRate = 0.8) => ({ setting: 'auto' as const, minRate });

  test('a fixed repeat: pass at or above the rate, else fail; 3/3 passes', () => {
    expect(caseVerdict(3, 3, fixed(3))).toBe('pass');
    expect(caseVerdict(4, 5, fixed(5))).toBe('pass');
    expect(caseVerdict(3, 5, fixed(5))).toBe('fail');
    expect(caseVerdict(7, 10, fixed(10, 0.7))).toBe('pass');
    expect(caseVerdict(6, 10, fixed(10, 0.7))).toBe('fail');
    expect(caseVerdict(2, 3, fixed(3, 0.5))).toBe('pass');
    expect(caseVerdict(1, 3, fixed(3, 0.5))).toBe('fail');
  });

  test('auto keeps the evidence rule: 3/3 at 0.8 is inconclusive, 14/14 passes', () => {
    expect(caseVerdict(3, 3, auto())).toBe('inconclusive');
    expect(caseVerdict(14, 14, auto())).toBe('pass');
    expect(caseVerdict(1, 3, auto(0.5))).toBe('inconclusive');
  });

  test('no passing answer is a fail under either rule, whatever the rate', () => {
    expect(caseVerdict(0, 3, fixed(3, 0.5))).toBe('fail');
    expect(caseVerdict(0, 3, auto(0.5))).toBe('fail');
    expect(caseVerdict(0, 1, auto(0))).toBe('fail');
    expect(caseVerdict(0, 2, fixed(2, 0))).toBe('fail');
  });

  test('the fewest answers whose interval can exclude the rate both ways', () => {
    // 0.8^14 = 0.044 is the first power at or under 0.05; 0.5 needs 5 both ways.
    expect(answersToExclude(0.8)).toBe(14);
    expect(answersToExclude(0.5)).toBe(5);
    expect(answersToExclude(0.2)).toBe(14);
    expect(answersToExclude(1)).toBe(Infinity);
    for (const rate of [0.5, 0.8, 0.9]) {
      const n = answersToExclude(rate);
      expect(rateVerdict(n, n, rate)).toBe('pass');
      expect(rateVerdict(0, n, rate)).toBe('fail');
      expect(rateVerdict(n - 1, n - 1, rate) === 'pass' && rateVerdict(0, n - 1, rate) === 'fail').toBe(
        false,
      );
    }
  });
});
