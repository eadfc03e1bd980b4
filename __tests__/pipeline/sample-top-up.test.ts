import { type CaseResult } from '../../src/core/results.js';
import { type CaseTopUp } from '../../src/pipeline/execute-case.js';
import { topUpSamples } from '../../src/pipeline/sample-top-up.js';

/** A case whose doubt after each further sample is the next of `doubts`; it records its samples. */
function offer(first: number, extra: number, doubts: number[], log: string[], name: string, fails = false) {
  let taken = 0;
  const t: CaseTopUp = {
    calls: () => ({ first, extra: extra + taken }),
    doubt: () => doubts[taken] ?? 0,
    more: () => {
      taken++;
      log.push(name);
      return Promise.resolve({ id: name, verdict: fails ? 'error' : 'pass', score: 1 } as CaseResult);
    },
  };
  return t;
}

const deps = (concurrency = 1, allow = () => true) => ({
  concurrency,
  signal: undefined,
  spend: { allow } as never,
  info: () => undefined,
});

test('the leftover of twice the first calls goes to the likeliest wrong verdicts, one sample at a time', async () => {
  const log: string[] = [];
  // 3 first calls and 1 extra: 2 left. b (0.3) first; then b at 0.2 against c at 0.25: c.
  const offers = [
    offer(1, 1, [0.005], log, 'a'),
    offer(1, 0, [0.3, 0.2, 0.1], log, 'b'),
    offer(1, 0, [0.25, 0.05], log, 'c'),
  ];
  const out = await topUpSamples(offers, deps());
  expect(log).toEqual(['b', 'c']);
  expect([...out.keys()]).toEqual([1, 2]);
});

test('ties go in plan order; a batch takes `concurrency` cases at once; below 0.01 a case takes none', async () => {
  const log: string[] = [];
  const offers = [
    offer(1, 0, [0.5, 0.001], log, 'a'),
    undefined,
    offer(1, 0, [0.5, 0.001], log, 'c'),
    offer(1, 0, [0.009], log, 'd'),
  ];
  await topUpSamples(offers, deps(2));
  // 3 calls left; a and c in one batch, then nothing above the floor.
  expect(log).toEqual(['a', 'c']);
});

test('nothing is left when the cases already spent their share, or the spend cap is reached', async () => {
  const log: string[] = [];
  expect((await topUpSamples([offer(2, 2, [0.9], log, 'a')], deps())).size).toBe(0);
  expect(
    (
      await topUpSamples(
        [offer(1, 0, [0.9], log, 'b')],
        deps(1, () => false),
      )
    ).size,
  ).toBe(0);
  expect(log).toEqual([]);
});

test('a sample from the leftover that fails leaves the case as decided, and it takes no more', async () => {
  const log: string[] = [];
  const out = await topUpSamples([offer(3, 0, [0.5, 0.5, 0.5], log, 'a', true)], deps());
  expect(log).toEqual(['a']);
  expect(out.size).toBe(0);
});
