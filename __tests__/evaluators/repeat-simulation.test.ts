import { type CaseResult } from '../../src/core/results.js';
import { collectRepeats, combineRepeats } from '../../src/evaluators/repeated-case.js';
import { type RepeatSetting } from '../../src/core/repeat-setting.js';
import { mulberry32 } from '../../src/core/seeded-random.js';

/**
 * The four properties README "Repeats" promises, simulated through the real repeat loop and verdict: a case
 * whose answers pass with a fixed probability, drawn from a seeded PRNG (mulberry32), many runs.
 * With 4,000 runs a true rate of 5% would be seen above 5.6% in well under 1% of seeds, so a
 * bound of 5% here is meaningful; the exact figures are in pass-rate.test.ts.
 */

const RUNS = 4000;

const answer = (passes: boolean): CaseResult => ({
  id: 'c',
  verdict: passes ? 'pass' : 'fail',
  score: passes ? 1 : 0.4,
  gating_violations: [],
  evaluators: [],
  target: 't',
  answer: passes ? 'right' : 'wrong',
  duration_ms: 1,
});

async function simulate(rate: number, setting: RepeatSetting, seed: number) {
  const random = mulberry32(seed);
  const tally = { pass: 0, fail: 0, inconclusive: 0, answers: 0, maxAnswers: 0 };
  for (let run = 0; run < RUNS; run++) {
    const answers = await collectRepeats(setting, 0.8, (_repeat) => Promise.resolve(answer(random() < rate)));
    const c = combineRepeats(answers!, { setting, minRate: 0.8 });
    tally[c.verdict as 'pass' | 'fail' | 'inconclusive']++;
    tally.answers += c.repeats!;
    tally.maxAnswers = Math.max(tally.maxAnswers, c.repeats!);
  }
  return tally;
}

describe('the promised properties of repeat: auto, simulated (seeded)', () => {
  test('every answer passing: pass within 20 answers, every run', async () => {
    const t = await simulate(1, 'auto', 1);
    expect(t.pass).toBe(RUNS);
    expect(t.maxAnswers).toBeLessThanOrEqual(20);
  });

  test('every answer failing: fail within 3 answers, every run', async () => {
    const t = await simulate(0, 'auto', 2);
    expect(t.fail).toBe(RUNS);
    expect(t.maxAnswers).toBeLessThanOrEqual(3);
  });

  test('right half the time: pass in at most 5% of runs', async () => {
    const t = await simulate(0.5, 'auto', 3);
    expect(t.pass / RUNS).toBeLessThanOrEqual(0.05);
    // And mostly it is caught: the exact figure is 91% fail.
    expect(t.fail / RUNS).toBeGreaterThan(0.85);
  });

  test('right 95% of the time: fail in at most 5% of runs', async () => {
    const t = await simulate(0.95, 'auto', 4);
    expect(t.fail / RUNS).toBeLessThanOrEqual(0.05);
    // Exact: 49% pass, 51% inconclusive, 0.3% fail.
    expect(t.pass / RUNS).toBeGreaterThan(0.4);
  });
});

describe('the same properties with a fixed repeat: 20, read as the observed rate', () => {
  test('all passing passes, all failing fails, a coin never passes, 0.95 rarely fails', async () => {
    expect((await simulate(1, 20, 5)).pass).toBe(RUNS);
    expect((await simulate(0, 20, 6)).fail).toBe(RUNS);
    expect((await simulate(0.5, 20, 7)).pass / RUNS).toBeLessThanOrEqual(0.05);
    const high = await simulate(0.95, 20, 8);
    expect(high.fail / RUNS).toBeLessThanOrEqual(0.05);
    expect(high.answers).toBe(20 * RUNS);
  });
});

test('auto spends fewer answers than a fixed 20 on the clear cases', async () => {
  for (const [rate, seed] of [
    [1, 9],
    [0, 10],
    [0.2, 11],
  ] as const) {
    const auto = await simulate(rate, 'auto', seed);
    expect(auto.answers / RUNS).toBeLessThan(15);
  }
});
