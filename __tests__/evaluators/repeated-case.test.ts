import { type CaseResult, emptyUsage } from '../../src/core/results.js';
import { collectRepeats, combineRepeats } from '../../src/evaluators/repeated-case.js';

const judged = (
  verdict: CaseResult['verdict'],
  score: number,
  extra: Partial<CaseResult> = {},
): CaseResult => ({
  id: 'refund',
  definition_hash: 'abcdabcdabcdabcd',
  line: 4,
  target: 'app',
  gating_violations: verdict === 'pass' ? [] : ['rubric-2: required item not satisfied'],
  score,
  verdict,
  evaluators: [],
  answer: `${verdict} answer`,
  duration_ms: 10,
  usage: { ...emptyUsage(), judge_calls: 2, prompt_tokens: 100, completion_tokens: 10 },
  ...extra,
});

describe('combineRepeats', () => {
  test('pass rate, exact bounds, each answer, the mean score and the summed usage', () => {
    const answers = [
      judged('pass', 1),
      judged('pass', 1),
      judged('fail', 0.5),
      judged('pass', 1),
      judged('borderline', 0.7),
    ];
    const c = combineRepeats(answers, { setting: 'auto', minRate: 0.8 });
    expect(c).toMatchObject({
      id: 'refund',
      definition_hash: 'abcdabcdabcdabcd',
      verdict: 'inconclusive',
      repeats: 5,
      pass_rate: 0.6,
      pass_rate_low: 0.1893,
      pass_rate_high: 0.9236,
      score: 0.84,
      // The representative answer: the first that did not pass, so the reasons read.
      answer: 'fail answer',
      gating_violations: ['rubric-2: required item not satisfied'],
      duration_ms: 50,
    });
    expect(c.answers!.map((a) => [a.repeat, a.verdict, a.score])).toEqual([
      [1, 'pass', 1],
      [2, 'pass', 1],
      [3, 'fail', 0.5],
      [4, 'pass', 1],
      [5, 'borderline', 0.7],
    ]);
    expect(c.answers![2]!.answer).toBe('fail answer');
    expect(c.usage).toMatchObject({ judge_calls: 10, prompt_tokens: 500 });
  });

  test('14 passing answers pass; two failing fail', () => {
    expect(
      combineRepeats(
        Array.from({ length: 14 }, () => judged('pass', 1)),
        { setting: 'auto', minRate: 0.8 },
      ).verdict,
    ).toBe('pass');
    expect(
      combineRepeats([judged('fail', 0), judged('fail', 0)], { setting: 'auto', minRate: 0.8 }).verdict,
    ).toBe('fail');
  });

  test('a fixed repeat reads the observed rate: 3/3 passes, 3 of 5 fails at 0.8, the interval kept', () => {
    const all = combineRepeats([judged('pass', 1), judged('pass', 1), judged('pass', 1)], {
      setting: 3,
      minRate: 0.8,
    });
    expect(all).toMatchObject({
      verdict: 'pass',
      repeats: 3,
      pass_rate: 1,
      pass_rate_low: 0.3684,
      pass_rate_high: 1,
    });
    const some = ['pass', 'pass', 'fail', 'pass', 'fail'] as const;
    expect(
      combineRepeats(
        some.map((v) => judged(v, v === 'pass' ? 1 : 0)),
        { setting: 5, minRate: 0.8 },
      ).verdict,
    ).toBe('fail');
  });

  test('three failing answers at 0.5 fail, fixed or auto (issue 43 item 5)', () => {
    const failing = [judged('fail', 0), judged('fail', 0), judged('fail', 0)];
    expect(combineRepeats(failing, { setting: 3, minRate: 0.5 }).verdict).toBe('fail');
    expect(combineRepeats(failing, { setting: 'auto', minRate: 0.5 }).verdict).toBe('fail');
  });

  test('an errored answer makes the case an error that says which answer', () => {
    const c = combineRepeats([judged('pass', 1), judged('error', 0, { error: 'target exited 1' })], {
      setting: 2,
      minRate: 0.8,
    });
    expect(c.verdict).toBe('error');
    expect(c.error).toBe('answer 2: target exited 1');
  });
});

describe('collectRepeats', () => {
  test('a fixed count asks for every answer, each with its 1-based repeat index', async () => {
    const asked: number[] = [];
    const answers = await collectRepeats(5, 0.8, (repeat) => {
      asked.push(repeat);
      return Promise.resolve(judged('pass', 1));
    });
    expect(answers).toHaveLength(5);
    expect(asked.sort()).toEqual([1, 2, 3, 4, 5]);
  });

  test('auto stops at the first verdict: 14 passes, or 2 failures', async () => {
    const pass = await collectRepeats('auto', 0.8, () => Promise.resolve(judged('pass', 1)));
    expect(pass).toHaveLength(14);
    const fail = await collectRepeats('auto', 0.8, () => Promise.resolve(judged('fail', 0)));
    expect(fail).toHaveLength(2);
  });

  test('auto stops on an error, and a cancelled answer cancels the case', async () => {
    let n = 0;
    const errored = await collectRepeats('auto', 0.8, () =>
      Promise.resolve(++n === 3 ? judged('error', 0, { error: 'boom' }) : judged('pass', 1)),
    );
    expect(errored).toHaveLength(3);
    expect(await collectRepeats('auto', 0.8, () => Promise.resolve(undefined))).toBeUndefined();
    expect(await collectRepeats(3, 0.8, () => Promise.resolve(undefined))).toBeUndefined();
  });

  test('auto asks nothing more once the run is cancelled', async () => {
    const ctl = new AbortController();
    let n = 0;
    const r = await collectRepeats(
      'auto',
      0.8,
      () => {
        if (++n === 2) ctl.abort();
        return Promise.resolve(judged('pass', 1));
      },
      ctl.signal,
    );
    expect(r).toBeUndefined();
    expect(n).toBe(2);
  });
});
