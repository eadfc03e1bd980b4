import { type Config, type FAIL_ON } from './config.js';
import { shownCheck } from '../core/calibration-results.js';
import { type RunResults } from '../core/results.js';
import { unmetPassRates } from './pass-rate-line.js';
import { effectNumbers, overallRows } from '../core/effect-line.js';

export type FailOn = (typeof FAIL_ON)[number];

/** Whether the verdict trips `fail-on` (so the check fails). */
export function tripsFailOn(verdict: RunResults['verdict'], failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  if (verdict === 'fail') return true;
  return failOn === 'borderline' && verdict === 'borderline';
}

/**
 * Whether a case the judge did not decide either way (`skipped`, `inconclusive`) fails the check
 * under `failOn`, as checkFailures counts it: skipped is never a pass unless `never`; inconclusive
 * fails under `inconclusive` and the stricter `borderline`.
 */
export function failsCheck(verdict: string, failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  if (verdict === 'skipped') return true;
  if (verdict === 'inconclusive') return failOn === 'inconclusive' || failOn === 'borderline';
  return verdict === 'fail' || verdict === 'error';
}

const failing = (v: string | null | undefined) => v === 'fail' || v === 'error';

/**
 * Does the run fail the check under `fail-on`? The reasons say why, one short phrase each, for
 * the failure message. `regression` blames the PR only for what it made worse (a case broken or
 * regressed, a new or redefined case failing, an error); without a baseline it is `fail`.
 */
export function checkFailures(results: RunResults, failOn: FailOn): string[] {
  if (failOn === 'never') return [];
  // `calibration`: the `fail` rule, and a check whose judge is below min-judge-agreement fails too.
  if (failOn === 'calibration') return [...checkFailures(results, 'fail'), ...calibrationFailures(results)];
  if (results.partial) return ['the run was cancelled (partial results)'];
  if (results.errors.length > 0)
    return [`invalid input (${results.errors.length} problem${results.errors.length === 1 ? '' : 's'})`];
  if (failOn === 'regression' && results.baseline) return regressions(results);
  if (failOn === 'effect' && results.effect && results.effect.overall.length > 0)
    return effectFailures(results);
  if (results.pass_rates) return passRateFailures(results, failOn);
  // Every other case is the absolute rule; `regression` or `effect` without a baseline is `fail`.
  const c = results.counts;
  const inconclusive = c.inconclusive ?? 0;
  const tripped =
    tripsFailOn(results.verdict, failOn === 'borderline' ? failOn : 'fail') ||
    (failOn === 'inconclusive' && inconclusive > 0);
  if (!tripped) return [];
  const bits: string[] = [];
  if (c.fail) bits.push(`${c.fail} failed`);
  if (c.error) bits.push(`${c.error} errored`);
  if (failOn === 'borderline' && c.borderline) bits.push(`${c.borderline} borderline`);
  if (c.skipped) bits.push(`${c.skipped} skipped, not judged`);
  // Repeats: `inconclusive` and the stricter `borderline` fail on cases the answers could not decide.
  if ((failOn === 'inconclusive' || failOn === 'borderline') && inconclusive)
    bits.push(`${inconclusive} inconclusive`);
  if (results.rubric?.verdict === 'fail') bits.push(`rubric ${results.rubric.path} failed`);
  return bits.length ? bits : ['nothing was evaluated'];
}

/** With a pass-rate gate the cases fail the check only through the rates (and what no rate forgives). */
function passRateFailures(results: RunResults, failOn: FailOn): string[] {
  if (!tripsFailOn(results.verdict, failOn === 'borderline' ? failOn : 'fail')) return [];
  const bits = unmetPassRates(results);
  const c = results.counts;
  if (c.skipped) bits.push(`${c.skipped} skipped, not judged`);
  if (results.rubric?.verdict === 'fail') bits.push(`rubric ${results.rubric.path} failed`);
  if (bits.length === 0 && failOn === 'borderline' && c.borderline) bits.push(`${c.borderline} borderline`);
  return bits.length ? bits : ['cases failed in a suite without a pass-rate gate'];
}

function calibrationFailures(results: RunResults): string[] {
  const below = results.calibration?.below_floor ?? [];
  if (below.length === 0) return [];
  const floor = results.calibration?.floor;
  return [
    `${below.length} check${below.length === 1 ? '' : 's'} below min-judge-agreement ${floor} (${below.map((b) => `${shownCheck(b)} κ ${b.kappa.toFixed(2)}`).join(', ')})`,
  ];
}

function regressions(results: RunResults): string[] {
  const n = { broken: 0, regressed: 0, newFailing: 0, errored: 0 };
  for (const s of results.suites)
    for (const c of s.cases) {
      const change = c.baseline?.change;
      if (c.verdict === 'error') n.errored++;
      if (change === 'broken') n.broken++;
      else if (change === 'regressed') n.regressed++;
      else if ((change === 'new' || change === 'redefined' || !change) && failing(c.verdict)) n.newFailing++;
    }
  const bits: string[] = [];
  if (n.broken) bits.push(`${n.broken} broken`);
  if (n.regressed) bits.push(`${n.regressed} regressed`);
  if (n.newFailing) bits.push(`${n.newFailing} new or redefined failing`);
  if (n.errored) bits.push(`${n.errored} errored`);
  // A case never judged is no evidence that nothing got worse: skipped never passes.
  if (results.counts.skipped) bits.push(`${results.counts.skipped} skipped, not judged`);
  if (results.rubric?.verdict === 'fail') bits.push(`rubric ${results.rubric.path} failed`);
  return bits;
}

/**
 * `fail-on: effect`: the overall effect of either metric reads `regressed` (docs/effect.md);
 * an errored or skipped case, or a failed markdown rubric, is no evidence that nothing got
 * worse. An effect that cannot see a drop (fewer than 2 clusters, no detectable drop) is no
 * evidence either: the PR's own `cluster` labels could make it so, and then the absolute rule
 * (`fail`) decides, as without a baseline, and the first reason says why.
 */
function effectFailures(results: RunResults): string[] {
  const rows = results.effect ? overallRows(results.effect) : [];
  const bits = rows
    .filter((r) => r.verdict === 'regressed')
    .map((r) => `the ${r.metric === 'pass' ? 'pass rate' : 'score'} regressed (${effectNumbers(r)})`);
  const blind = rows.find((r) => r.clusters < 2 || r.mde === null);
  if (bits.length === 0 && blind) {
    const absolute = checkFailures(results, 'fail');
    const clusters = `${blind.clusters} cluster${blind.clusters === 1 ? '' : 's'}`;
    return absolute.length === 0
      ? []
      : [
          `the effect cannot detect a drop (${blind.n} cases in ${clusters}), so the absolute rule applies`,
          ...absolute,
        ];
  }
  if (results.counts.error) bits.push(`${results.counts.error} errored`);
  if (results.counts.skipped) bits.push(`${results.counts.skipped} skipped, not judged`);
  if (results.rubric?.verdict === 'fail') bits.push(`rubric ${results.rubric.path} failed`);
  return bits;
}

/**
 * Under `fail-on: regression` the run's verdict and the check can differ (a case failing on both
 * sides fails the verdict, not the check): the comparison records which, for the report.
 */
export function withRegressionCheck(results: RunResults, failOn: FailOn): RunResults {
  if (failOn !== 'regression' || !results.baseline) return results;
  const reasons = checkFailures(results, failOn);
  return {
    ...results,
    baseline: { ...results.baseline, check: { fail_on: failOn, fails: reasons.length > 0, reasons } },
  };
}

/**
 * Why the check fails, or null when it passes. A shard's check is never failed on its verdict:
 * the merge of every shard decides it.
 */
export function checkFailure(results: RunResults, config: Pick<Config, 'failOn' | 'shard'>): string | null {
  if (config.shard) return null;
  return checkFailures(results, config.failOn).length > 0 ? failureMessage(results, config.failOn) : null;
}

/** The one-line reason the check failed (the action's setFailed, the CLI's stderr). */
export function failureMessage(results: RunResults, failOn: FailOn): string {
  const reasons = checkFailures(results, failOn);
  if (results.partial)
    return `rubric-eval: ${results.shards ? 'a shard was' : 'the run was'} cancelled; the partial results fail the check`;
  if (results.errors.length > 0)
    return `rubric-eval: ${results.shards ? 'the shards do not make one valid run' : 'invalid input'} (${results.errors.length} problem${results.errors.length === 1 ? '' : 's'}): ${results.errors[0]}`;
  const mode =
    (failOn === 'regression' && results.baseline) || (failOn === 'effect' && results.effect?.overall.length)
      ? ' against the baseline'
      : '';
  return `rubric-eval: ${results.verdict} (score ${results.score.toFixed(2)})${mode}: ${reasons.join(', ') || 'nothing was evaluated'}`;
}
