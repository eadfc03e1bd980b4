import { type RunResults, type SkipReason } from '../core/results.js';

/** Where a fork's cases are judged: the trusted stage (README "The trusted stage"). */
const TRUSTED_STAGE_HINT =
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
