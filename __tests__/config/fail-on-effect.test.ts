import { checkFailures, failureMessage } from '../../src/config/fail-on.js';
import { type EffectRow, type RunEffect, type RunResults } from '../../src/core/results.js';
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

  it('falls back to the absolute rule when the effect cannot detect a drop (one cluster, no mde)', () => {
    // A PR that breaks every case and puts them all in one cluster: the interval is [-1, 1].
    const oneCluster = {
      ...row('pass', 'inconclusive'),
      clusters: 1,
      mde: null,
      delta_low: -1,
      delta_high: 1,
    };
    const r = { ...failing, effect: effect(oneCluster, { ...oneCluster, metric: 'score' as const }) };
    expect(checkFailures(r, 'effect')).toEqual([
      'the effect cannot detect a drop (40 cases in 1 cluster), so the absolute rule applies',
      '1 failed',
    ]);
    expect(failureMessage(r, 'effect')).toMatch(
      /the effect cannot detect a drop .*, so the absolute rule applies, 1 failed$/,
    );
    // Many clusters but no detectable drop (mde null) is the same.
    const noMde = { ...failing, effect: effect({ ...row('pass', 'inconclusive'), mde: null }) };
    expect(checkFailures(noMde, 'effect')).toEqual([
      'the effect cannot detect a drop (40 cases in 40 clusters), so the absolute rule applies',
      '1 failed',
    ]);
    // Nothing failing: the absolute rule passes it too.
    const passing = resultsOf([['s.yaml', 'a', 'pass', 1]]);
    expect(checkFailures({ ...passing, effect: effect({ ...oneCluster }) }, 'effect')).toEqual([]);
  });

  it('fails on a failed markdown rubric', () => {
    const passing = resultsOf([['s.yaml', 'a', 'pass', 1]]);
    const rubric = { path: 'RUBRIC.md', verdict: 'fail' } as RunResults['rubric'];
    expect(
      checkFailures({ ...passing, rubric, effect: effect(row('pass', 'non-inferior')) }, 'effect'),
    ).toEqual(['rubric RUBRIC.md failed']);
  });
});
