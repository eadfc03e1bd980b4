import { type PassRate, type RunResults, type SkipReason } from '../core/results.js';

/** `96.0%`: one decimal, so a rate just under its minimum never prints as equal to it. */
export const percent = (x: number): string => `${(Math.floor(x * 1000) / 10).toFixed(1)}%`;

/** `suite evals/qa.yaml: pass rate 80.0% (8/10) below min_pass_rate 95.0%`; `overall: …` for the run. */
export function passRateLine(p: PassRate): string {
  const where = p.suite === null ? 'overall' : `suite ${p.suite}`;
  return `${where}: pass rate ${percent(p.rate)} (${p.passed}/${p.total}) ${p.met ? 'meets' : 'below'} min ${percent(p.min)}`;
}

/** The pass-rate gates that failed, one phrase each (the check's failure message). */
export function unmetPassRates(results: RunResults): string[] {
  return (results.pass_rates ?? []).filter((p) => !p.met).map(passRateLine);
}

/** Where a fork's cases are judged: the trusted stage (README "The trusted stage"). */
export const TRUSTED_STAGE_HINT =
  'judge them in the trusted stage: `stage: record` on pull_request, `stage: judge` on workflow_run (README "The trusted stage")';

const SKIP_WHY: Record<SkipReason, (r: RunResults | null) => string> = {
  budget: (r) =>
    `the spend cap budget-usd $${r?.budget?.usd ?? '?'} was reached (spent ≈ $${(r?.budget?.spent_usd ?? 0).toFixed(4)})`,
  'no-judge-credential': () =>
    `a pull request from a fork runs without the judge's credential; ${TRUSTED_STAGE_HINT}`,
};

/** Why cases were skipped, as one phrase: what the reader can do about it. */
export function skipWhy(reason: SkipReason, results: RunResults | null = null): string {
  return SKIP_WHY[reason](results);
}

/**
 * One line per reason cases were skipped (never one per case): `12 cases skipped: the spend cap …`.
 * Skipped cases were never judged, so they never pass.
 */
export function skippedLines(results: RunResults): string[] {
  const by = new Map<SkipReason, number>();
  for (const s of results.suites)
    for (const c of s.cases)
      if (c.verdict === 'skipped') by.set(c.skipped ?? 'budget', (by.get(c.skipped ?? 'budget') ?? 0) + 1);
  return [...by].map(
    ([reason, n]) => `${n} case${n === 1 ? '' : 's'} skipped, not judged: ${skipWhy(reason, results)}`,
  );
}

/** The spend, when a cap was set: `spent ≈ $0.4981 of budget-usd $0.50`. */
export function budgetLine(results: RunResults): string | null {
  const b = results.budget;
  if (!b) return null;
  return `spent ≈ $${b.spent_usd.toFixed(4)} of budget-usd $${b.usd}${b.skipped ? ` · ${b.skipped} skipped` : ''}`;
}
