import {
  type CaseResult,
  type CheckResult,
  type EvaluatorResult,
  type SuiteResult,
} from '../core/results.js';
import { scoreCase } from '../evaluators/case-scoring.js';
import { evaluatorVerdict, weightedMeanOrEqual } from '../rubric/scoring.js';
import { type EvalSuite } from '../suite/types.js';
import { type BelowFloor, type CalibrationRow } from '../core/calibration-results.js';

const fmt = (k: number) => k.toFixed(2);

/**
 * The checks whose judge agrees with people less than the floor. A check without κ (fewer than
 * 10 labels, or κ undefined) is not below it: there is no evidence against its judge, so it gates.
 */
export function belowFloor(rows: readonly CalibrationRow[], floor: number | null): BelowFloor[] {
  if (floor === null) return [];
  return rows
    .filter((r) => r.kappa !== null && r.kappa < floor)
    .map((r) => ({
      suite: r.suite,
      id: r.id,
      check: r.check,
      n: r.n,
      kappa: r.kappa!,
      reason: `κ ${fmt(r.kappa!)} (95% ${fmt(r.kappa_low ?? r.kappa!)}..${fmt(r.kappa_high ?? r.kappa!)}) over ${r.n} labels is below min-judge-agreement ${floor}`,
    }));
}

const key = (suite: string, id: string) => JSON.stringify([suite, id]);

/**
 * Advisory checks stop gating: each is kept in the results (marked, with its κ) but left out of
 * its evaluator's score and gates, and the case is scored again by its format's rules. Applies to
 * llm_judge evaluators at a case's top level (a composite's children keep gating).
 */
export function applyAdvisory(
  suites: readonly SuiteResult[],
  loaded: readonly EvalSuite[],
  advisory: readonly BelowFloor[],
): SuiteResult[] {
  if (advisory.length === 0) return [...suites];
  const byCase = new Map<string, Map<string, BelowFloor>>();
  for (const a of advisory) {
    const k = key(a.suite, a.id);
    if (!byCase.has(k)) byCase.set(k, new Map());
    byCase.get(k)!.set(a.check, a);
  }
  return suites.map((s, si) => ({
    ...s,
    cases: s.cases.map((c) => {
      const checks = byCase.get(key(s.path, c.id));
      const evalCase = (loaded.find((l) => l.path === s.path) ?? loaded[si])?.cases.find(
        (x) => x.id === c.id,
      );
      return checks && evalCase && c.verdict !== 'error' ? rescoredCase(c, checks, evalCase) : c;
    }),
  }));
}

function rescoredCase(
  c: CaseResult,
  advisory: ReadonlyMap<string, BelowFloor>,
  evalCase: Parameters<typeof scoreCase>[0],
): CaseResult {
  const evaluators = c.evaluators.map((e) => rescoredEvaluator(e, advisory));
  if (evaluators.every((e, i) => e === c.evaluators[i])) return c;
  const agg = scoreCase(evalCase, evaluators);
  return {
    ...c,
    gating_violations: agg.gating_violations,
    score: agg.score,
    verdict: agg.verdict,
    evaluators,
  };
}

function rescoredEvaluator(e: EvaluatorResult, advisory: ReadonlyMap<string, BelowFloor>): EvaluatorResult {
  if (e.type !== 'llm_judge' || !e.checks || e.verdict === 'error') return e;
  if (!e.checks.some((c) => advisory.has(c.id))) return e;
  const checks: CheckResult[] = e.checks.map((c) => {
    const a = advisory.get(c.id);
    return a ? { ...c, advisory: a.reason } : c;
  });
  const gating = checks.filter((c) => !c.advisory);
  const value = (c: CheckResult) => (c.satisfied !== undefined ? (c.satisfied ? 1 : 0) : (c.score ?? 0) / 10);
  // Every check advisory: nothing of this evaluator gates, so it cannot fail the case.
  const score = gating.length
    ? weightedMeanOrEqual(gating.map((c) => ({ value: value(c), weight: c.weight })))
    : 1;
  const violations = e.gating_violations.filter(
    (v) => !checks.some((c) => c.advisory && v.startsWith(`${c.id}:`)),
  );
  return { ...e, checks, score, verdict: evaluatorVerdict(score, violations), gating_violations: violations };
}
