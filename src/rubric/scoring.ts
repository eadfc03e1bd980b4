import {
  type CaseVerdict,
  type CheckResult,
  type EvaluatorResult,
  type RunCounts,
  type Verdict,
} from '../core/results.js';
import { type ChecklistItem, type RangeCriterion } from './types.js';

/** Thresholds of seeds 000/001: pass at >= 0.8, borderline at >= 0.6. */
const PASS_THRESHOLD = 0.8;
const BORDERLINE_THRESHOLD = 0.6;
/** Weighted sums such as 0.7 * 0.8 + 0.3 * 0.8 land a hair under the threshold in binary floating point. */
const EPSILON = 1e-9;

export function verdictForScore(score: number): Verdict {
  if (score + EPSILON >= PASS_THRESHOLD) return 'pass';
  if (score + EPSILON >= BORDERLINE_THRESHOLD) return 'borderline';
  return 'fail';
}

/** Verdict of one evaluator: from its score, forced to fail by any gating violation. */
export function evaluatorVerdict(score: number, gatingViolations: readonly string[]): Verdict {
  return gatingViolations.length > 0 ? 'fail' : verdictForScore(score);
}

/**
 * Weighted mean. When every weight is 0 there is nothing to weigh by, so each counts the same
 * (a list of all-zero weights would otherwise divide by zero).
 */
export function weightedMean(items: readonly { value: number; weight: number }[]): number {
  if (items.length === 0) return 0;
  const total = items.reduce((s, i) => s + i.weight, 0);
  if (total <= 0) return items.reduce((s, i) => s + i.value, 0) / items.length;
  return items.reduce((s, i) => s + i.value * i.weight, 0) / total;
}

export const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

export interface ScoredChecks {
  score: number;
  verdict: Verdict;
  checks: CheckResult[];
  gating_violations: string[];
}

/** Checklist: score = satisfied weight / total weight; a `required` item not satisfied gates. */
export function scoreChecklist(
  items: readonly ChecklistItem[],
  answers: ReadonlyMap<string, { satisfied: boolean; reasoning: string | null }>,
): ScoredChecks {
  const checks: CheckResult[] = items.map((item) => {
    const a = answers.get(item.id);
    return {
      id: item.id,
      satisfied: a?.satisfied ?? false,
      weight: item.weight,
      required: item.required,
      reasoning: a?.reasoning ?? null,
    };
  });
  const score = weightedMean(checks.map((c) => ({ value: c.satisfied ? 1 : 0, weight: c.weight })));
  const gating = checks
    .filter((c) => c.required && !c.satisfied)
    .map((c) => `${c.id}: required item not satisfied`);
  return { score, verdict: evaluatorVerdict(score, gating), checks, gating_violations: gating };
}

/** Score ranges: each criterion's integer 0..10 normalised by /10, weighted mean; `required_min_score` gates. */
export function scoreRanges(
  items: readonly RangeCriterion[],
  answers: ReadonlyMap<string, { score: number; reasoning: string | null }>,
): ScoredChecks {
  const checks: CheckResult[] = items.map((item) => {
    const a = answers.get(item.id);
    return {
      id: item.id,
      score: a?.score ?? 0,
      weight: item.weight,
      required: item.requiredMinScore !== null,
      required_min_score: item.requiredMinScore,
      reasoning: a?.reasoning ?? null,
    };
  });
  const score = weightedMean(checks.map((c) => ({ value: (c.score ?? 0) / 10, weight: c.weight })));
  const gating = checks
    .filter((c) => c.required_min_score != null && (c.score ?? 0) < c.required_min_score)
    .map((c) => `${c.id}: score ${c.score} is below required_min_score ${c.required_min_score}`);
  return { score, verdict: evaluatorVerdict(score, gating), checks, gating_violations: gating };
}

export interface CaseAggregate {
  score: number;
  verdict: CaseVerdict;
  gating_violations: string[];
  /** Judge samples split on a check that decides the verdict (the evaluators carry which). */
  unstable?: true;
}

/**
 * Weighted mean of evaluator scores as AgentV's orchestrator and composite compute it: weight 0
 * excludes, and when every weight is 0 there is nothing to count, so the score is 0.
 */
export function evaluatorMean(items: readonly { value: number; weight: number }[]): number {
  const total = items.reduce((s, i) => s + i.weight, 0);
  return total > 0 ? items.reduce((s, i) => s + i.value * i.weight, 0) / total : 0;
}

/**
 * A case from its evaluators: weighted mean by evaluator weight (0 excludes; all 0 scores 0),
 * `error` if any evaluator errored, `fail` on any gating violation, else from the thresholds.
 */
export function aggregateCase(evaluators: readonly EvaluatorResult[]): CaseAggregate {
  const score = evaluatorMean(evaluators.map((e) => ({ value: e.score, weight: e.weight })));
  const gating = evaluators.flatMap((e) =>
    e.gating_violations.map((v) => (e.name === 'rubric' ? v : `${e.name} › ${v}`)),
  );
  let verdict: CaseVerdict;
  if (evaluators.some((e) => e.verdict === 'error')) verdict = 'error';
  else if (gating.length > 0) verdict = 'fail';
  else verdict = verdictForScore(score);
  return {
    score,
    verdict,
    gating_violations: gating,
    ...(evaluators.some((e) => e.unstable) ? { unstable: true as const } : {}),
  };
}

function countVerdicts(verdicts: readonly CaseVerdict[]): RunCounts {
  const counts: RunCounts = { pass: 0, borderline: 0, fail: 0, error: 0 };
  for (const v of verdicts) counts[v]++;
  return counts;
}

export interface RunAggregate {
  score: number;
  verdict: Verdict;
  counts: RunCounts;
}

/**
 * The run: score is the mean of the case scores (the markdown rubric counts as one more item);
 * verdict is fail if any case failed or errored or the rubric failed, else borderline if any case
 * is borderline, else pass. A run with nothing evaluated at all is a fail: an empty run must not
 * turn a required check green.
 */
export function aggregateRun(
  cases: readonly { score: number; verdict: CaseVerdict }[],
  rubric: { score: number; verdict: 'pass' | 'fail' } | null,
): RunAggregate {
  const counts = countVerdicts(cases.map((c) => c.verdict));
  const scores = cases.map((c) => c.score);
  if (rubric) scores.push(rubric.score);
  const score = scores.length === 0 ? 0 : scores.reduce((a, b) => a + b, 0) / scores.length;
  let verdict: Verdict;
  if (cases.length === 0 && !rubric) verdict = 'fail';
  else if (counts.fail > 0 || counts.error > 0 || rubric?.verdict === 'fail') verdict = 'fail';
  else if (counts.borderline > 0) verdict = 'borderline';
  else verdict = 'pass';
  return { score, verdict, counts };
}
