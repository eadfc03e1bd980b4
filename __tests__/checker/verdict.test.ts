import { type GateResult, type CriterionResult } from '../../src/core/results.js';
import { checkerCounts, checkerVerdict, formatCheckerCounts } from '../../src/checker/verdict.js';

describe("the checker's verdict on a markdown rubric", () => {
  const gate = (verdict: 'pass' | 'fail'): GateResult => ({
    command: 'x',
    verdict,
    exit_code: verdict === 'pass' ? 0 : 1,
    timed_out: false,
    duration_ms: 1,
    output: '',
  });
  const check = (kind: 'must' | 'nice', satisfied: boolean | null): CriterionResult => ({
    id: kind,
    kind,
    text: '',
    satisfied,
    reasoning: null,
  });
  test('all gates and must-haves pass, nice-to-have failing: pass', () => {
    const checks = [check('must', true), check('must', true), check('nice', false)];
    expect(
      checkerVerdict({ gates: [gate('pass')], checks, judgeVerdict: 'accept', judgeError: false }),
    ).toEqual({ verdict: 'pass', score: 1 });
    expect(formatCheckerCounts(checkerCounts([gate('pass')], checks))).toBe(
      'gates: 1/1 · must: 2/2 · nice: 0/1',
    );
  });
  test('a failing gate fails', () => {
    const r = checkerVerdict({
      gates: [gate('fail'), gate('pass')],
      checks: [check('must', true)],
      judgeVerdict: 'accept',
      judgeError: false,
    });
    expect(r.verdict).toBe('fail');
    expect(r.score).toBeCloseTo(2 / 3, 12);
  });
  test('a must-have not satisfied fails; terminate fails; a judge error fails', () => {
    expect(
      checkerVerdict({ gates: [], checks: [check('must', false)], judgeVerdict: 'retry', judgeError: false })
        .verdict,
    ).toBe('fail');
    expect(
      checkerVerdict({
        gates: [gate('pass')],
        checks: [check('must', true)],
        judgeVerdict: 'terminate',
        judgeError: false,
      }),
    ).toEqual({ verdict: 'fail', score: 0 });
    expect(
      checkerVerdict({
        gates: [gate('pass')],
        checks: [check('must', null)],
        judgeVerdict: null,
        judgeError: true,
      }).verdict,
    ).toBe('fail');
  });
  test('gates-only rubric: counts show only gates', () => {
    expect(formatCheckerCounts(checkerCounts([gate('pass'), gate('fail')], []))).toBe('gates: 1/2');
  });
});
