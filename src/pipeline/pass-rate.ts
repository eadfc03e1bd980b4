import { type PassRate, type RunResults, type SuiteResult, type Verdict } from '../core/results.js';
import { EPSILON } from '../core/epsilon.js';

/** A suite's own minimum when it is a share (a merged shard file is untrusted), else the run's. */
function suiteMin(s: SuiteResult, overall: number | null): number | null {
  const own = s.min_pass_rate;
  return typeof own === 'number' && own >= 0 && own <= 1 ? own : overall;
}

function rateOf(
  suite: string | null,
  all: readonly { verdict: string; advisory_only?: true }[],
  min: number,
): PassRate {
  // A case only advisory checks judged is no evidence either way: not in the rate at all.
  const cases = all.filter((c) => !c.advisory_only);
  const passed = cases.filter((c) => c.verdict === 'pass').length;
  const total = cases.length;
  const rate = total === 0 ? 0 : passed / total;
  // Nothing judged is not a pass rate met: an empty suite must not turn a required check green.
  // Cases that only advisory checks judged are borderline, which fails only under `fail-on:
  // borderline`: a rate of none of them must not fail the run on the advisory checks either.
  const onlyAdvisory = total === 0 && all.length > 0;
  return { suite, passed, total, rate, min, met: onlyAdvisory || (total > 0 && rate + EPSILON >= min) };
}

/**
 * The pass-rate gates (`min-pass-rate`, a suite's `min_pass_rate`): the share of cases that
 * passed (borderline, failed, errored and skipped cases do not), per suite and overall. With a
 * gate, the cases' verdicts decide the run only through the rates: the run fails when a rate is
 * below its minimum, or for what no rate forgives (invalid input, a cancelled run, a failed
 * markdown rubric, cases skipped unjudged); otherwise it passes. A `required` item still fails
 * its own case, which then counts against the rate.
 */
export function applyPassRates(results: RunResults, overall: number | null | undefined): RunResults {
  const min = overall ?? null;
  const gated = results.suites.filter((s) => suiteMin(s, min) !== null);
  if (gated.length === 0) return results;
  const rates = gated.map((s) => rateOf(s.path, s.cases, suiteMin(s, min)!));
  if (min !== null)
    rates.unshift(
      rateOf(
        null,
        results.suites.flatMap((s) => s.cases),
        min,
      ),
    );
  // Suites without a gate of their own (no input, no key) still need every case to pass.
  const ungated = results.suites.filter((s) => suiteMin(s, min) === null).flatMap((s) => s.cases);
  const unforgiven =
    results.errors.length > 0 ||
    results.partial ||
    results.rubric?.verdict === 'fail' ||
    (results.counts.skipped ?? 0) > 0 ||
    ungated.some((c) => c.verdict === 'fail' || c.verdict === 'error');
  const verdict: Verdict =
    !rates.every((r) => r.met) || unforgiven
      ? 'fail'
      : ungated.some((c) => c.verdict === 'borderline')
        ? 'borderline'
        : 'pass';
  const history = results.history.map((h, i) => (i === results.history.length - 1 ? { ...h, verdict } : h));
  return { ...results, verdict, pass_rates: rates, history };
}
