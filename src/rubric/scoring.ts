import { type CheckResult, type Verdict } from '../core/results.js';
import { type ChecklistItem, type RangeCriterion } from './types.js';
import { EPSILON } from '../core/epsilon.js';

/** A score passes at >= 0.8 and is borderline at >= 0.6; anything lower fails. */
const PASS_THRESHOLD = 0.8;
const BORDERLINE_THRESHOLD = 0.6;

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
export function weightedMeanOrEqual(items: readonly { value: number; weight: number }[]): number {
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

/**
 * The gating violation one judged check makes, null when it makes none: a required checklist
 * item not satisfied, a range criterion below its `required_min_score`. The one place the text
 * is made, so a violation can be traced back to its check exactly (advisory checks).
 */
export function checkViolation(c: CheckResult): string | null {
  if (c.satisfied !== undefined)
    return c.required && !c.satisfied ? `${c.id}: required item not satisfied` : null;
  if (c.required_min_score != null && (c.score ?? 0) < c.required_min_score)
    return `${c.id}: score ${c.score} is below required_min_score ${c.required_min_score}`;
  return null;
}

/** Checklist: score = satisfied weight / total weight; a `required` item not satisfied gates. */
export function scoreChecklist(
  items: readonly ChecklistItem[],
  answers: ReadonlyMap<string, { satisfied: boolean; reasoning?: string | null }>,
): ScoredChecks {
  const checks: CheckResult[] = items.map((item) => {
    const a = answers.get(item.id);
    return {
      id: item.id,
      text: item.outcome,
      satisfied: a?.satisfied ?? false,
      weight: item.weight,
      required: item.required,
      reasoning: a?.reasoning ?? null,
    };
  });
  const score = weightedMeanOrEqual(checks.map((c) => ({ value: c.satisfied ? 1 : 0, weight: c.weight })));
  const gating = checks.map(checkViolation).filter((v): v is string => v !== null);
  return { score, verdict: evaluatorVerdict(score, gating), checks, gating_violations: gating };
}

/** Score ranges: each criterion's integer 0..10 normalised by /10, weighted mean; `required_min_score` gates. */
export function scoreRanges(
  items: readonly RangeCriterion[],
  answers: ReadonlyMap<string, { score: number; reasoning?: string | null }>,
): ScoredChecks {
  const checks: CheckResult[] = items.map((item) => {
    const a = answers.get(item.id);
    return {
      id: item.id,
      text: item.outcome,
      score: a?.score ?? 0,
      weight: item.weight,
      required: item.requiredMinScore !== null,
      required_min_score: item.requiredMinScore,
      reasoning: a?.reasoning ?? null,
    };
  });
  const score = weightedMeanOrEqual(checks.map((c) => ({ value: (c.score ?? 0) / 10, weight: c.weight })));
  const gating = checks.map(checkViolation).filter((v): v is string => v !== null);
  return { score, verdict: evaluatorVerdict(score, gating), checks, gating_violations: gating };
}
