import {
  binaryAgreement,
  type BinaryPair,
  bootstrapInterval,
  cohenKappa,
  quantile,
  rangeAgreement,
  type ScorePair,
  weightedKappa,
} from '../../src/calibration/stats.js';
import { mulberry32 } from '../../src/core/seeded-random.js';

const repeat = (judge: boolean, human: boolean, k: number): BinaryPair[] =>
  Array.from({ length: k }, () => ({ judge, human }));

/*
 * The labelled fixture, by hand: 20 pairs, judge yes & human yes 8, judge yes & human no 2,
 * judge no & human yes 3, both no 7.
 *   agreement p_o = (8 + 7) / 20 = 0.75
 *   judge yes 10/20 = 0.5, human yes 11/20 = 0.55
 *   chance p_e = 0.5 × 0.55 + 0.5 × 0.45 = 0.5
 *   κ = (0.75 − 0.5) / (1 − 0.5) = 0.5
 *   TPR = 8 / (8 + 3) = 0.727, TNR = 7 / (7 + 2) = 0.778
 * Interval: 1,000 resamples with mulberry32(1), percentiles 2.5 / 97.5 interpolated linearly;
 * an independent Python reimplementation (no scikit-learn on this machine) gives 0.100 .. 0.898.
 */
const binaryFixture: BinaryPair[] = [
  ...repeat(true, true, 8),
  ...repeat(true, false, 2),
  ...repeat(false, true, 3),
  ...repeat(false, false, 7),
];

/*
 * 0-10 range fixture (judge, human), by hand:
 *   Σ(j − h)² = 1+0+1+0+4+0+1+1+0+4+4+0 = 16
 *   Σj = 66, Σj² = 458, Σh = 70, Σh² = 510, n = 12
 *   expected Σ_i Σ_k (row_i col_k / n)(i − k)² = Σj² + Σh² − 2 Σj Σh / n = 968 − 770 = 198
 *   weighted κ = 1 − 16 / 198 = 0.919
 *   MAE = (1+0+1+0+2+0+1+1+0+2+2+0) / 12 = 10 / 12 = 0.833; exact agreement 5/12 = 0.417
 *   judge higher: (3,2) (2,1) (9,8) = 3; judge lower: (8,9) (5,7) (0,2) (7,9) = 4
 * Python reference interval: 0.797 .. 0.966.
 */
const rangeFixture: ScorePair[] = [
  [8, 9],
  [7, 7],
  [3, 2],
  [10, 10],
  [5, 7],
  [6, 6],
  [2, 1],
  [9, 8],
  [4, 4],
  [0, 2],
  [7, 9],
  [5, 5],
].map(([judge, human]) => ({ judge: judge!, human: human! }));

describe('mulberry32', () => {
  it('is the documented generator: the same first draws as the reference', () => {
    const r = mulberry32(1);
    expect(r()).toBeCloseTo(0.6270739405881613, 12);
    expect(r()).toBeCloseTo(0.002735721180215478, 12);
    expect(r()).toBeCloseTo(0.5274470399599522, 12);
  });
});

describe('checklist agreement', () => {
  it('matches the hand computation to 3 decimals', () => {
    const a = binaryAgreement(binaryFixture);
    expect(a.n).toBe(20);
    expect(a.agreement).toBeCloseTo(0.75, 3);
    expect(a.kappa).toBeCloseTo(0.5, 3);
    expect(a.tpr).toBeCloseTo(0.727, 3);
    expect(a.tnr).toBeCloseTo(0.778, 3);
    expect(a.judge_yes_human_no).toBe(2);
    expect(a.judge_no_human_yes).toBe(3);
    expect(a.kappa_low).toBeCloseTo(0.1, 3);
    expect(a.kappa_high).toBeCloseTo(0.898, 3);
    expect(a.kappa_note).toBeUndefined();
  });

  it('is the same interval on every run (seeded)', () => {
    expect(binaryAgreement(binaryFixture)).toEqual(binaryAgreement(binaryFixture));
  });

  it('perfect agreement is κ 1, and its interval is [1, 1]', () => {
    const a = binaryAgreement([...repeat(true, true, 6), ...repeat(false, false, 6)]);
    expect(a).toMatchObject({ agreement: 1, kappa: 1, kappa_low: 1, kappa_high: 1, tpr: 1, tnr: 1 });
  });

  it('all one class on both sides: κ is undefined (null) and says why; TNR has nothing to divide by', () => {
    const a = binaryAgreement(repeat(true, true, 12));
    expect(a).toMatchObject({
      agreement: 1,
      kappa: null,
      kappa_low: null,
      kappa_high: null,
      tpr: 1,
      tnr: null,
    });
    expect(a.kappa_note).toMatch(/undefined/);
  });

  it('people used one class, the judge both: κ 0 (no better than chance), TPR null', () => {
    const a = binaryAgreement([...repeat(true, false, 4), ...repeat(false, false, 8)]);
    expect(a.kappa).toBeCloseTo(0, 12);
    expect(a.tpr).toBeNull();
    expect(a.tnr).toBeCloseTo(8 / 12, 12);
  });

  it('fewer than 10 labels: no κ and no interval, and it says so', () => {
    const a = binaryAgreement(binaryFixture.slice(0, 9));
    expect(a.n).toBe(9);
    expect(a.kappa).toBeNull();
    expect(a.kappa_low).toBeNull();
    expect(a.kappa_note).toBe('9 labels; κ needs at least 10');
    expect(a.agreement).toBeCloseTo(8 / 9, 12);
  });

  it('no pairs at all: nothing to divide by anywhere', () => {
    expect(binaryAgreement([])).toMatchObject({ n: 0, agreement: null, kappa: null, tpr: null, tnr: null });
  });

  it('total disagreement is κ −1', () => {
    expect(cohenKappa([...repeat(true, false, 5), ...repeat(false, true, 5)])).toBeCloseTo(-1, 12);
  });
});

describe('range agreement', () => {
  it('matches the hand computation to 3 decimals', () => {
    const a = rangeAgreement(rangeFixture);
    expect(a.n).toBe(12);
    expect(a.weighted_kappa).toBeCloseTo(0.919, 3);
    expect(a.kappa).toBe(a.weighted_kappa);
    expect(a.mae).toBeCloseTo(0.833, 3);
    expect(a.agreement).toBeCloseTo(0.417, 3);
    expect(a.judge_yes_human_no).toBe(3);
    expect(a.judge_no_human_yes).toBe(4);
    expect(a.tpr).toBeNull();
    expect(a.kappa_low).toBeCloseTo(0.797, 3);
    expect(a.kappa_high).toBeCloseTo(0.966, 3);
  });

  it('one and the same score throughout on both sides: undefined; perfect agreement: 1', () => {
    expect(weightedKappa(Array.from({ length: 12 }, () => ({ judge: 7, human: 7 })))).toBeNull();
    expect(weightedKappa(rangeFixture.map((p) => ({ judge: p.human, human: p.human })))).toBeCloseTo(1, 12);
  });

  it('fewer than 10 labels: weighted κ null, MAE still given', () => {
    const a = rangeAgreement(rangeFixture.slice(0, 4));
    expect(a.weighted_kappa).toBeNull();
    expect(a.mae).toBeCloseTo(1 / 2, 12);
  });
});

describe('bootstrap', () => {
  it('drops resamples where the statistic is undefined, and returns null when all are', () => {
    expect(bootstrapInterval(repeat(true, true, 12), cohenKappa)).toBeNull();
  });

  it('interpolates percentiles linearly', () => {
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5], 0.975)).toBeCloseTo(4.9, 12);
  });
});
