import { type CaseResult } from '../../src/core/results.js';
import { type CaseTopUp } from '../../src/pipeline/execute-case.js';
import { SampleTopUps } from '../../src/pipeline/sample-top-up.js';
import { fitRunNoise } from '../../src/evaluators/run-noise.js';
import { PRIOR_NOISE } from '../../src/evaluators/verdict-posterior.js';

interface Fake {
  first: number;
  extra: number;
  doubts: number[];
  /** Calls each further sample makes (an aggregator asked again makes it 2). */
  cost?: number;
  maxCost?: number;
  verdict?: CaseResult['verdict'];
}

/** A case whose doubt after each further sample is the next of `doubts`; it logs its samples. */
function offer(f: Fake, log: string[], name: string): CaseTopUp {
  let taken = 0;
  let made = 0;
  return {
    calls: () => ({ first: f.first, extra: f.extra + made }),
    votes: () => [],
    doubt: () => f.doubts[taken] ?? 0,
    maxCost: () => f.maxCost ?? 1,
    more: () => {
      taken++;
      made += f.cost ?? 1;
      log.push(name);
      const usage = {
        judge_calls: f.first + f.extra + made,
        cached_calls: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: null,
      };
      return Promise.resolve({ id: name, verdict: f.verdict ?? 'pass', score: 1, usage } as CaseResult);
    },
  };
}

const deps = (concurrency = 1, allow = () => true) => {
  const said: string[] = [];
  return {
    said,
    deps: { concurrency, signal: undefined, spend: { allow } as never, info: (m: string) => said.push(m) },
  };
};
const decided = (verdict: CaseResult['verdict']) => () =>
  ({ id: 'x', verdict, score: 0.5, usage: { judge_calls: 1 } }) as CaseResult;

test('the leftover of twice the first calls goes to the likeliest wrong verdicts, one sample at a time', async () => {
  const log: string[] = [];
  const pool = new SampleTopUps();
  // 3 first calls and 1 extra: 2 left. b (0.3) first; then b at 0.2 against c at 0.25: c.
  pool.offer(0, 'a', offer({ first: 1, extra: 1, doubts: [0.005] }, log, 'a'));
  pool.offer(1, 'b', offer({ first: 1, extra: 0, doubts: [0.3, 0.2, 0.1] }, log, 'b'));
  pool.offer(2, 'c', offer({ first: 1, extra: 0, doubts: [0.25, 0.05] }, log, 'c'));
  const { said, deps: d } = deps();
  const out = await pool.run(decided('fail'), d);
  expect(log).toEqual(['b', 'c']);
  expect([...out.keys()].sort()).toEqual([1, 2]);
  expect(said).toContain("judge samples: 2 more calls from the run's leftover budget, on 2 cases");
  expect(said).toContain("judge samples: b: fail → pass after a sample from the run's leftover");
});

test('ties go in plan order; a batch takes `concurrency` cases at once; below 0.01 a case takes none', async () => {
  const log: string[] = [];
  const pool = new SampleTopUps();
  pool.offer(0, 'a', offer({ first: 1, extra: 0, doubts: [0.5, 0.001] }, log, 'a'));
  pool.offer(2, 'c', offer({ first: 1, extra: 0, doubts: [0.5, 0.001] }, log, 'c'));
  pool.offer(3, 'd', offer({ first: 1, extra: 0, doubts: [0.009] }, log, 'd'));
  await pool.run(decided('pass'), deps(2).deps);
  expect(log).toEqual(['a', 'c']);
});

test('what a sample really cost is counted, and a sample that could cost more than is left is not taken', async () => {
  const log: string[] = [];
  const pool = new SampleTopUps();
  // 2 left; a's sample re-asks an aggregator (2 calls): after it, nothing is left for b.
  pool.offer(0, 'a', offer({ first: 1, extra: 0, doubts: [0.5, 0.4], cost: 2, maxCost: 2 }, log, 'a'));
  pool.offer(1, 'b', offer({ first: 1, extra: 0, doubts: [0.3] }, log, 'b'));
  await pool.run(decided('pass'), deps(4).deps);
  expect(log).toEqual(['a']);
  // 1 left: a case whose sample may cost 2 is passed over for one that costs 1.
  const log2: string[] = [];
  const pool2 = new SampleTopUps();
  pool2.offer(0, 'a', offer({ first: 1, extra: 1, doubts: [0.5], maxCost: 2 }, log2, 'a'));
  pool2.offer(1, 'b', offer({ first: 1, extra: 0, doubts: [0.3] }, log2, 'b'));
  await pool2.run(decided('pass'), deps().deps);
  expect(log2).toEqual(['b']);
});

test('nothing is left when the cases already spent their share, or the spend cap is reached', async () => {
  const log: string[] = [];
  const pool = new SampleTopUps();
  pool.offer(0, 'a', offer({ first: 2, extra: 2, doubts: [0.9] }, log, 'a'));
  expect((await pool.run(decided('pass'), deps().deps)).size).toBe(0);
  const capped = new SampleTopUps();
  capped.offer(0, 'b', offer({ first: 1, extra: 0, doubts: [0.9] }, log, 'b'));
  expect((await capped.run(decided('pass'), deps(1, () => false).deps)).size).toBe(0);
  expect(log).toEqual([]);
});

test('a sample from the leftover that fails leaves the case as decided, with what it cost in its usage', async () => {
  const log: string[] = [];
  const pool = new SampleTopUps();
  pool.offer(0, 'a', offer({ first: 3, extra: 0, doubts: [0.5, 0.5, 0.5], verdict: 'error' }, log, 'a'));
  const out = await pool.run(decided('fail'), deps().deps);
  expect(log).toEqual(['a']);
  expect(out.get(0)).toMatchObject({ verdict: 'fail', score: 0.5, usage: { judge_calls: 4 } });
});

test('a leftover sample that throws (cancelled mid-call) leaves its case as decided and the run goes on', async () => {
  const log: string[] = [];
  const pool = new SampleTopUps();
  const throwing = offer({ first: 1, extra: 0, doubts: [0.9] }, log, 'a');
  pool.offer(0, 'a', { ...throwing, more: () => Promise.reject(new Error('aborted')) });
  pool.offer(1, 'b', offer({ first: 1, extra: 0, doubts: [0.5] }, log, 'b'));
  const out = await pool.run(decided('pass'), deps(2).deps);
  expect([...out.keys()]).toEqual([1]);
});

test('the run fits its noise to the votes of every offered case and ranks the cases under that fit', async () => {
  const log: string[] = [];
  const seen: unknown[] = [];
  const pool = new SampleTopUps();
  const split = [{ key: 'k', yes: 1, total: 2, weight: 1, required: true }];
  // Under the prior b looks likelier wrong; under the run's fit a. The pool must ask with the fit.
  const withModel = (name: string, prior: number, fitted: number): CaseTopUp => {
    const base = offer({ first: 1, extra: 1, doubts: [prior] }, log, name);
    return {
      ...base,
      votes: () => [split],
      doubt: (model) => {
        seen.push(model);
        return model && model !== PRIOR_NOISE ? fitted : prior;
      },
    };
  };
  pool.offer(1, 'b', withModel('b', 0.4, 0.2));
  pool.offer(0, 'a', withModel('a', 0.3, 0.6));
  pool.offer(2, 'c', offer({ first: 2, extra: 0, doubts: [0] }, log, 'c'));
  await pool.run(decided('pass'), deps().deps);
  expect(log[0]).toBe('a');
  expect(seen[0]).toEqual(fitRunNoise([split, split]));
});
