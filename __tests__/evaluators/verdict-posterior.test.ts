import fc from 'fast-check';
import { DOUBT_THRESHOLD, type ItemVotes, verdictDoubt } from '../../src/evaluators/verdict-posterior.js';

type Verdict = 'pass' | 'borderline' | 'fail';

/** The checklist rule (a required item unmet fails; else weighted share 0.8 pass, 0.6 borderline). */
function rule(items: readonly ItemVotes[]) {
  return (values: ReadonlyMap<string, number>): Verdict => {
    if (items.some((it) => it.required && values.get(it.key) === 0)) return 'fail';
    const total = items.reduce((s, it) => s + it.weight, 0);
    const met = items.reduce((s, it) => s + it.weight * (values.get(it.key) ?? 0), 0);
    const share =
      total > 0 ? met / total : items.filter((it) => values.get(it.key) === 1).length / items.length;
    return share >= 0.8 - 1e-9 ? 'pass' : share >= 0.6 - 1e-9 ? 'borderline' : 'fail';
  };
}

/** Items from `yes/total` strings, all required or all not, weight 1. */
function votes(list: string[], required = true): ItemVotes[] {
  return list.map((v, i) => {
    const [yes, total] = v.split('/').map(Number) as [number, number];
    return { key: `i${i}`, yes, total, weight: 1, required };
  });
}

/** The verdict the combined votes give (an item is met when most of its samples say so). */
function combinedVerdict(items: readonly ItemVotes[]): Verdict {
  return rule(items)(new Map(items.map((it) => [it.key, it.yes * 2 > it.total ? 1 : 0])));
}

const doubt = (items: ItemVotes[]) => verdictDoubt(items, combinedVerdict(items), rule(items));
const repeat = (v: string, n: number) => Array.from({ length: n }, () => v);

test('doubt matches an independent implementation of the model (Python, /work/notes/issue-35-sim2.py)', () => {
  // One sample: a miss on the only required item may be a slip.
  expect(doubt(votes(['0/1']))).toBeCloseTo(0.1631, 3);
  // A pass on ten required items: some "met" among them is a slip 16% of the time.
  expect(doubt(votes(repeat('1/1', 10)))).toBeCloseTo(0.1578, 3);
  // One miss among ten: less likely a slip, because another "met" may be wrong as well.
  expect(doubt(votes([...repeat('1/1', 9), '0/1']))).toBeCloseTo(0.1096, 3);
  expect(doubt(votes(['0/1', '0/1', '1/1']))).toBeCloseTo(0.0353, 3);
  // Non-required: 3/5 is borderline; one of the two misses being a slip passes it.
  expect(doubt(votes(['1/1', '1/1', '1/1', '0/1', '0/1'], false))).toBeCloseTo(0.308, 3);
  // More samples: a split on a deciding item is most in doubt; a majority of three settles it.
  expect(doubt(votes(['1/2', ...repeat('2/2', 4)]))).toBeCloseTo(0.737, 3);
  expect(doubt(votes(['2/3', '3/3', '3/3']))).toBeCloseTo(0.0521, 3);
  expect(doubt(votes(['1/3', '3/3', '3/3']))).toBeCloseTo(0.3228, 3);
});

test('agreeing samples lower the doubt; a threshold of one in ten sits between a settled and an open item', () => {
  const single = [1, 2, 3, 4, 5].map((n) => doubt(votes([`0/${n}`, `${n}/${n}`])));
  for (let i = 1; i < single.length; i++) expect(single[i]!).toBeLessThan(single[i - 1]!);
  expect(DOUBT_THRESHOLD).toBe(0.1);
  expect(doubt(votes(['0/1', '1/1']))).toBeGreaterThan(DOUBT_THRESHOLD);
  expect(doubt(votes(['0/2', '2/2']))).toBeLessThan(DOUBT_THRESHOLD);
});

test('a case whose votes show a noisy judge trusts a unanimous miss less', () => {
  // The same required item, missed by all three samples, beside items that do not gate: how
  // likely it is truly met (the verdict reads only whether a required item is unmet).
  const firstMet = (list: string[]) => {
    const items = votes(list, false).map((it, i) => ({ ...it, required: i === 0 }));
    return verdictDoubt(items, 'fail', (v) => (v.get('i0') === 1 ? 'pass' : 'fail'));
  };
  const noisy = firstMet(['0/3', '1/3', '2/3', '2/3', '1/3']);
  const clean = firstMet(['0/3', '0/3', '3/3', '3/3', '0/3']);
  expect(noisy).toBeGreaterThan(2 * clean);
});

test('no items: no doubt', () => {
  expect(verdictDoubt([], 'pass', () => 'fail')).toBe(0);
});

/**
 * A second, plain implementation of the model (the module's doc comment): every assignment of the
 * items' truths enumerated, each noise level weighed by the votes.
 */
function bruteForce(items: readonly ItemVotes[], base: Verdict): number {
  const bin = (p: number, y: number, n: number) => p ** y * (1 - p) ** (n - y);
  const hi = [0.8, 0.85, 0.9, 0.95];
  const like = (it: ItemVotes, s: number, met: boolean) => {
    const certain = bin(met ? 0.995 : 0.005, it.yes, it.total);
    const noisy = hi.reduce((a, p) => a + bin(met ? p : 1 - p, it.yes, it.total), 0) / 4;
    return (1 - s) * certain + s * noisy;
  };
  const levels = [0.1, 0.4, 0.9];
  const verdictOf = rule(items);
  let joint = 0;
  let evidence = 0;
  for (const s of levels)
    for (let mask = 0; mask < 1 << items.length; mask++) {
      let p = 1 / levels.length;
      items.forEach((it, i) => {
        const met = ((mask >> i) & 1) === 1;
        p *= (met ? 0.75 : 0.25) * like(it, s, met);
      });
      evidence += p;
      const values = new Map(items.map((it, i) => [it.key, (mask >> i) & 1]));
      if (verdictOf(values) !== base) joint += p;
    }
  return joint / evidence;
}

test('the merged sum equals enumerating every assignment, whatever the weights and required flags', () => {
  const arb = fc.array(
    fc.record({
      yes: fc.integer({ min: 0, max: 3 }),
      extra: fc.integer({ min: 0, max: 2 }),
      weight: fc.integer({ min: 0, max: 3 }),
      required: fc.boolean(),
    }),
    { minLength: 1, maxLength: 7 },
  );
  fc.assert(
    fc.property(arb, (raw) => {
      const items: ItemVotes[] = raw.map((r, i) => ({
        key: `i${i}`,
        yes: r.yes,
        total: Math.max(1, r.yes + r.extra),
        weight: r.weight,
        required: r.required,
      }));
      const base = combinedVerdict(items);
      expect(verdictDoubt(items, base, rule(items))).toBeCloseTo(bruteForce(items, base), 9);
    }),
    { numRuns: 200 },
  );
});
