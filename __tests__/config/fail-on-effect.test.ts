import { checkFailures, failureMessage } from '../../src/config/fail-on.js';
import { type EffectRow, type RunEffect } from '../../src/core/results.js';
import { resultsOf } from '../helpers/results.js';

const row = (metric: EffectRow['metric'], verdict: EffectRow['verdict']): EffectRow => ({
  metric,
  n: 40,
  clusters: 40,
  base_mean: 0.9,
  head_mean: 0.7,
  delta: -0.2,
  delta_low: -0.3,
  delta_high: -0.1,
  mde: 0.12,
  margin: 0.05,
  verdict,
  method: 'm',
});
const effect = (...overall: EffectRow[]): RunEffect => ({ margin: 0.05, paired: 40, overall, suites: [] });

describe('fail-on: effect', () => {
  const failing = resultsOf([['s.yaml', 'a', 'fail', 0.2]]);

  it('fails on a regressed overall effect of either metric, pass rate first', () => {
    const r = { ...failing, effect: effect(row('score', 'regressed'), row('pass', 'regressed')) };
    expect(checkFailures(r, 'effect')).toEqual([
      'the pass rate regressed (−20 points, 95% CI −30 to −10)',
      'the score regressed (−0.20, 95% CI −0.30 to −0.10)',
    ]);
    expect(failureMessage(r, 'effect')).toMatch(
      /^rubric-eval: fail \(score 0\.50\) against the baseline: the pass rate/,
    );
  });

  it('passes a failing case when the effect is non-inferior or inconclusive, not an errored one', () => {
    expect(
      checkFailures(
        { ...failing, effect: effect(row('score', 'inconclusive'), row('pass', 'non-inferior')) },
        'effect',
      ),
    ).toEqual([]);
    const errored = resultsOf([['s.yaml', 'a', 'error', 0]]);
    expect(checkFailures({ ...errored, effect: effect(row('pass', 'improved')) }, 'effect')).toEqual([
      '1 errored',
    ]);
  });

  it('is fail without a baseline or with too few paired cases', () => {
    expect(checkFailures(failing, 'effect')).toEqual(['1 failed']);
    expect(checkFailures({ ...failing, effect: effect() }, 'effect')).toEqual(['1 failed']);
  });
});
