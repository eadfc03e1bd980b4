import { fitRunNoise } from '../../src/evaluators/run-noise.js';
import { type ItemVotes, PRIOR_NOISE, verdictDoubt } from '../../src/evaluators/verdict-posterior.js';
import { seededRandom } from '../../__fixtures__/servers/openai-server.mjs';

/** A plain checklist's verdict: a required item unmet fails; else the met share against 0.8 / 0.6. */
function verdictOf(items: readonly ItemVotes[], met: (i: number) => boolean): string {
  if (items.some((it, i) => it.required && !met(i))) return 'fail';
  const score = items.filter((_, i) => met(i)).length / items.length;
  return score >= 0.8 - 1e-9 ? 'pass' : score >= 0.6 - 1e-9 ? 'borderline' : 'fail';
}
const combined = (items: readonly ItemVotes[]) =>
  verdictOf(items, (i) => items[i]!.yes * 2 > items[i]!.total);
const doubt = (items: ItemVotes[], model = PRIOR_NOISE) =>
  verdictDoubt(items, combined(items), (o) => verdictOf(items, (i) => o.get(items[i]!.key) === 1), model);
const votes = (...pairs: [number, number][]): ItemVotes[] =>
  pairs.map(([yes, total], i) => ({ key: `k${i}`, yes, total, weight: 1, required: true }));

test('no item sampled twice: the prior as it is (one vote cannot tell a slip from the truth)', () => {
  expect(fitRunNoise([votes([1, 1], [0, 1]), votes([1, 1])])).toBe(PRIOR_NOISE);
  expect(fitRunNoise([])).toBe(PRIOR_NOISE);
});

test('a run whose judge slips 10% on every item of half its cases: the fit finds the slip and the met share', () => {
  const random = seededRandom(44);
  const run: ItemVotes[][] = [];
  for (let c = 0; c < 200; c++) {
    const noisy = c % 2 === 0;
    const n = noisy ? 3 : 1;
    run.push(
      Array.from({ length: 5 }, (_, i) => {
        let yes = 0;
        for (let s = 0; s < n; s++) if (random() < (noisy ? 0.9 : 1)) yes++;
        return { key: `k${i}`, yes, total: n, weight: 1, required: true };
      }),
    );
  }
  const fit = fitRunNoise(run);
  expect(fit.noisyRight[0]).toBeGreaterThan(0.85);
  expect(fit.noisyRight[0]).toBeLessThan(0.95);
  expect(fit.metShare).toBeGreaterThan(0.9);
  // The deciding case: one required item at 1/2, four at 2/2. Under the fit the tie is likely a
  // slip of a met item (the run's items are nearly all met): the fail is likelier wrong than the
  // prior says, so the run samples it first.
  const tie = votes([1, 2], [2, 2], [2, 2], [2, 2], [2, 2]);
  expect(doubt(tie, fit)).toBeGreaterThan(doubt(tie));
  expect(doubt(tie, fit)).toBeGreaterThan(0.5);
  // Deterministic: the same votes give the same fit.
  expect(fitRunNoise(run)).toEqual(fit);
});

test('a run of a few cases moves the prior little: five misses stay a likely fail', () => {
  const fit = fitRunNoise([
    votes([0, 1], [0, 1], [0, 1], [0, 1], [0, 1]),
    votes([1, 1], [1, 1], [1, 1]),
    votes(...Array.from({ length: 10 }, (): [number, number] => [2, 2])),
    votes([2, 3], ...Array.from({ length: 9 }, (): [number, number] => [3, 3])),
  ]);
  expect(fit.metShare).toBeLessThan(0.9);
  expect(doubt(votes([0, 1], [0, 1], [0, 1], [0, 1], [0, 1]), fit)).toBeLessThan(0.01);
});

/**
 * `auto`'s two parts on a suite like the stability bench's `slip-5` (half the cases rest on five
 * required items the judge slips 10% on, half certain): each case samples while its doubt is
 * above 0.1, at most 2; then the run spends what is left of twice the first calls on the most
 * doubtful, ranked under the prior or under the run's fit. Small and seeded, so it runs in a
 * second; the full measurement is `npm run bench -- --only=stability`.
 */
function simulate(ranking: 'prior' | 'fit', runs: number): { error: number; one: number; calls: number } {
  const kinds: number[][] = [
    [0.9, 0.9, 0.9, 0.9, 0.9],
    [1, 1, 1, 1, 1],
    [1, 1, 1],
    [0, 1, 0],
    [0, 0, 0, 0, 0],
  ];
  const suite = Array.from({ length: 40 }, (_, i) => (i < 20 ? kinds[0]! : kinds[1 + (i % 4)]!));
  let wrong = 0;
  let wrongOne = 0;
  let calls = 0;
  for (let r = 0; r < runs; r++) {
    const random = seededRandom(100 + r);
    const cases = suite.map((ps) => ({
      ps,
      truth: ps.some((p) => p < 0.5) ? 'fail' : 'pass',
      items: votes(...ps.map((): [number, number] => [0, 0])),
    }));
    const sample = (c: (typeof cases)[number]) => {
      c.items.forEach((it, i) => {
        it.total++;
        if (random() < c.ps[i]!) it.yes++;
      });
      calls++;
    };
    for (const c of cases) {
      sample(c);
      if (combined(c.items) !== c.truth) wrongOne++;
      if (doubt(c.items) > 0.1) sample(c);
    }
    const model = ranking === 'fit' ? fitRunNoise(cases.map((c) => c.items)) : PRIOR_NOISE;
    let left = 2 * cases.length * (r + 1) - calls;
    while (left-- > 0) {
      const open = cases.filter((c) => c.items[0]!.total < 7);
      const ranked = open.map((c) => ({ c, d: doubt(c.items, model) })).sort((a, b) => b.d - a.d);
      if (!ranked[0] || ranked[0].d < 0.01) break;
      sample(ranked[0].c);
    }
    wrong += cases.filter((c) => combined(c.items) !== c.truth).length;
  }
  const n = runs * suite.length;
  return { error: wrong / n, one: wrongOne / n, calls: calls / n };
}

test('slip-5 in simulation: ranked by the run fit, auto is within 0.4x one sample error at 2x the calls', () => {
  const fit = simulate('fit', 3);
  const prior = simulate('prior', 3);
  expect(fit.calls).toBeLessThanOrEqual(2);
  expect(fit.error / fit.one).toBeLessThanOrEqual(0.4);
  expect(fit.error).toBeLessThan(prior.error);
});
