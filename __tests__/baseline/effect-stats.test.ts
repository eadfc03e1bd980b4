import {
  detectableDrop,
  effectVerdict,
  EFFECT_METHOD,
  interval,
  pairedSpread,
  tQuantile,
} from '../../src/baseline/effect-stats.js';

const own = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('effectVerdict: the rule exactly as docs/effect.md states it (margin 0.05)', () => {
  it.each([
    // low ≥ −margin: non-inferior, improved when low > 0
    [0.01, 0.2, 'improved'],
    [0, 0.2, 'non-inferior'],
    [-0.05, 0.1, 'non-inferior'],
    [-0.05, -0.01, 'non-inferior'],
    [-0.02, -0.01, 'non-inferior'],
    // high < 0 and low < −margin: regressed
    [-0.0501, -0.0001, 'regressed'],
    [-0.3, -0.1, 'regressed'],
    // otherwise inconclusive
    [-0.0501, 0, 'inconclusive'],
    [-0.3, 0.1, 'inconclusive'],
  ] as const)('[%p, %p] → %s', (low, high, verdict) => {
    expect(effectVerdict(low, high, 0.05)).toBe(verdict);
  });
});

describe('pairedSpread and interval', () => {
  it('does not collapse to [0, 0] when nothing flipped', () => {
    const ci = interval(pairedSpread(new Array(10).fill(0), own(10), 10));
    expect(ci.low).toBeLessThan(-0.15);
    expect(ci.high).toBeGreaterThan(0.15);
  });

  it('has no spread, and no mde, with one cluster', () => {
    const s = pairedSpread([0, -1, 0, 1], [0, 0, 0, 0], 1);
    expect(s.se).toBeNull();
    expect(interval(s)).toEqual({ low: -1, high: 1 });
    expect(detectableDrop(s, 0.05, 1)).toBeNull();
  });

  it('counts clusters and is wider when the cases of a cluster move together', () => {
    const diffs = [-1, -1, -1, 0, 0, 0, 1, 1, 1, 0, 0, 0];
    const byCluster = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3];
    const clustered = pairedSpread(diffs, byCluster, 4);
    const alone = pairedSpread(diffs, own(12), 12);
    expect(clustered.clusters).toBe(4);
    expect(clustered.se!).toBeGreaterThan(alone.se!);
  });

  it('at n ≥ 100 is no wider than the paired t interval by more than 20% (a realistic spread)', () => {
    // 100 and 2,000 cases of which 10% flip each way, and scores that move by tenths.
    for (const n of [100, 2000]) {
      for (const diffs of [
        own(n).map((i) => (i % 10 === 0 ? -1 : i % 10 === 1 ? 1 : 0)),
        own(n).map((i) => ((i % 7) - 3) / 10),
      ]) {
        const mean = diffs.reduce((a, b) => a + b, 0) / n;
        const sd = Math.sqrt(diffs.reduce((a, d) => a + (d - mean) ** 2, 0) / (n - 1));
        const tWidth = 2 * tQuantile(0.975, n - 1) * (sd / Math.sqrt(n));
        const ci = interval(pairedSpread(diffs, own(n), n));
        expect((ci.high - ci.low) / tWidth).toBeLessThan(1.2);
        expect((ci.high - ci.low) / tWidth).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('uses t quantiles: exact in the table, the expansion past it', () => {
    expect(tQuantile(0.975, 4)).toBe(2.776);
    expect(tQuantile(0.975, 60)).toBeCloseTo(2.0003, 3);
    expect(tQuantile(0.8, 120)).toBeCloseTo(0.8446, 3);
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.96, 3);
  });

  it('names its method, and the mde approaches the margin at large n', () => {
    expect(EFFECT_METHOD).toMatch(/cluster-robust t/);
    const n = 100_000;
    const diffs = own(n).map((i) => (i % 10 === 0 ? -1 : i % 10 === 1 ? 1 : 0));
    const mde = detectableDrop(pairedSpread(diffs, own(n), n), 0.05, 0.8)!;
    expect(mde).toBeGreaterThan(0.045);
    expect(mde).toBeLessThan(0.05);
  });
});
