import { type CaseVerdict, type EvaluatorResult } from '../core/results.js';
import {
  type AggregatorConfig,
  type CompositeConfig,
  type EvalCase,
  type EvaluatorConfig,
  INLINE_RUBRIC_EVALUATOR,
} from '../suite/types.js';
import { evaluatorVerdict, verdictForScore, weightedMeanOrEqual } from '../rubric/scoring.js';
import { EPSILON } from '../core/epsilon.js';

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
function weightedMeanOrZero(items: readonly { value: number; weight: number }[]): number {
  const total = items.reduce((s, i) => s + i.weight, 0);
  return total > 0 ? items.reduce((s, i) => s + i.value * i.weight, 0) / total : 0;
}

/**
 * A composite's score by a fixed aggregator: `all_or_nothing` is 1 only when every child scored
 * 1; `weighted_average` weighs each child by its weight in the aggregator (1 when not named;
 * all 0 scores 0). Undefined for the aggregators that judge or run a script.
 */
export function combineChildren(
  agg: AggregatorConfig,
  all: readonly { name: string; score: number; advisory?: string }[],
): number | undefined {
  const children = all.filter(counts);
  if (agg.type === 'all_or_nothing') return children.every((c) => c.score >= 1) ? 1 : 0;
  if (agg.type === 'weighted_average')
    return weightedMeanOrZero(children.map((c) => ({ value: c.score, weight: agg.weights[c.name] ?? 1 })));
  return undefined;
}

/**
 * Whether a result is evidence that counts: one whose every check is advisory (judge calibration)
 * is not, and takes no part in any score or verdict above it, as if it weighed 0.
 */
export const counts = (e: { advisory?: string }): boolean => e.advisory === undefined;

/**
 * Whether a composite's child weighs in its aggregation: by the aggregator's weights for a
 * weighted average, by its own weight in an assert-set; every child for all-or-nothing.
 */
export function weighsIn(
  config: Pick<CompositeConfig, 'aggregator' | 'assertSet'>,
  child: EvaluatorResult,
): boolean {
  if (config.assertSet) return child.weight > 0;
  if (config.aggregator.type === 'weighted_average') return (config.aggregator.weights[child.name] ?? 1) > 0;
  return true;
}

/**
 * Whether only advisory evaluators could decide this case: some are advisory and nothing else
 * weighs. Then nothing that gates judged the answer (see `scoreCase`).
 */
export function decidedByAdvisoryOnly(results: readonly EvaluatorResult[]): boolean {
  return results.some((e) => !counts(e)) && !results.some((e) => counts(e) && e.weight > 0);
}

/**
 * A composite's own verdict from its score: an `assert-set` passes at its threshold when it has
 * one, else when every child that weighs passed; any other composite by its score. A gating
 * violation in a child fails either.
 */
export function compositeVerdict(
  config: Pick<CompositeConfig, 'assertSet'>,
  score: number,
  children: readonly EvaluatorResult[],
  gating: readonly string[],
): CaseVerdict {
  const set = config.assertSet;
  if (!set) return evaluatorVerdict(score, gating);
  if (gating.length > 0) return 'fail';
  const pass =
    set.threshold !== null
      ? score + EPSILON >= set.threshold
      : children.filter((c) => c.weight > 0 && counts(c)).every((c) => c.verdict === 'pass');
  return pass ? 'pass' : 'fail';
}

/**
 * A case from its evaluators: weighted mean by evaluator weight (0 excludes; all 0 scores 0),
 * `error` if any evaluator errored, `fail` on any gating violation, else from the thresholds.
 */
export function aggregateCase(all: readonly EvaluatorResult[]): CaseAggregate {
  const evaluators = all.filter(counts);
  const score = weightedMeanOrZero(evaluators.map((e) => ({ value: e.score, weight: e.weight })));
  const gating = evaluators.flatMap((e) =>
    e.gating_violations.map((v) => (e.name === INLINE_RUBRIC_EVALUATOR ? v : `${e.name} › ${v}`)),
  );
  let verdict: CaseVerdict;
  if (evaluators.some((e) => e.verdict === 'error')) verdict = 'error';
  else if (gating.length > 0) verdict = 'fail';
  else verdict = verdictForScore(score);
  const aggregate: CaseAggregate = { score, verdict, gating_violations: gating };
  if (evaluators.some((e) => e.unstable)) aggregate.unstable = true;
  return aggregate;
}

/**
 * A case's verdict by the rules of the format it was written in: the loaded case says which
 * (`scoring`), so the pipeline never asks what format a suite was.
 */
export function scoreCase(
  evalCase: Pick<EvalCase, 'scoring' | 'evaluators'>,
  results: readonly EvaluatorResult[],
): CaseAggregate {
  const scoring = evalCase.scoring;
  const by = (r: readonly EvaluatorResult[]) =>
    !scoring
      ? aggregateCase(r)
      : scoring.kind === 'promptfoo'
        ? aggregatePromptfoo(evalCase.evaluators, r, scoring.threshold)
        : aggregateByThreshold(evalCase.evaluators, r, scoring.threshold);
  if (!decidedByAdvisoryOnly(results)) return by(results);
  return advisoryOnlyCase(
    by(results.map(({ advisory: _, ...e }) => ({ ...e, gating_violations: [] }))),
    by(results),
  );
}

/**
 * A case only advisory checks judged: no evidence that gates, so neither a pass by a score nobody
 * trusts nor a fail by it. It is `borderline` (a person should look; fails only under
 * `fail-on: borderline`) with the score its judge gave; an error, or a gate of an evaluator that
 * weighs 0, still decides it.
 */
function advisoryOnlyCase(judged: CaseAggregate, gating: CaseAggregate): CaseAggregate {
  if (gating.verdict === 'error' || gating.gating_violations.length > 0)
    return { ...gating, score: judged.score };
  return { score: judged.score, verdict: 'borderline', gating_violations: [] };
}

/**
 * AgentV 5: the weighted mean of the evaluators' scores (weight 0 excludes), `pass` at or above
 * the threshold, else `fail` (no borderline). A `required` evaluator scoring below its
 * `min_score` (else the threshold) zeroes the case. Stricter than AgentV where it must be: an
 * evaluator that errored makes the case an `error` (AgentV scores it 0 and goes on), and a
 * gating violation inside an evaluator (a required rubric item) fails the case.
 */
export function aggregateByThreshold(
  allConfigs: readonly EvaluatorConfig[],
  all: readonly EvaluatorResult[],
  threshold: number,
): CaseAggregate {
  // promptfoo's output-only test (no assertions): it passes once its target has answered.
  if (allConfigs.length === 0 && all.length === 0)
    return { score: 1, verdict: 'pass', gating_violations: [] };
  const kept = all.flatMap((r, i) => (counts(r) ? [i] : []));
  const results = kept.map((i) => all[i]!);
  const configs = kept.map((i) => allConfigs[i]);
  const requiredMisses = results.flatMap((r, i) => {
    const c = configs[i];
    if (!c?.required || r.verdict === 'error') return [];
    const min = c.minScore ?? threshold;
    return r.score + EPSILON < min
      ? [`${r.name}: required, scored ${r.score.toFixed(2)} < ${min} (the test scores 0)`]
      : [];
  });
  const gating = [
    ...requiredMisses,
    ...results.flatMap((e) => e.gating_violations.map((v) => `${e.name} › ${v}`)),
  ];
  const requiredFailed = requiredMisses.length > 0;
  const weighted = results.filter((e) => e.weight > 0);
  const score = requiredFailed
    ? 0
    : weightedMeanOrEqual(weighted.map((e) => ({ value: e.score, weight: e.weight })));
  let verdict: CaseAggregate['verdict'];
  if (results.some((e) => e.verdict === 'error')) verdict = 'error';
  else if (gating.length > 0) verdict = 'fail';
  else verdict = score + EPSILON >= threshold ? 'pass' : 'fail';
  const aggregate: CaseAggregate = { score, verdict, gating_violations: gating };
  if (results.some((e) => e.unstable)) aggregate.unstable = true;
  return aggregate;
}

/**
 * promptfoo's verdict (its AssertionsResult): the score is the weighted mean of the assertions
 * (all weights 0 score 0); the test passes when every assertion that weighs passed (promptfoo
 * 0.121 passes a test whose only failure weighs 0), or, with a test `threshold` (0 too), when the score reaches it whatever
 * failed. No assertions: 1, a pass. Stricter than promptfoo as everywhere here: an evaluator
 * that errored makes the case an `error`, and a gating violation (a required rubric item, a
 * `required` assertion that did not pass) fails it.
 */
function aggregatePromptfoo(
  allConfigs: readonly EvaluatorConfig[],
  all: readonly EvaluatorResult[],
  threshold: number | null,
): CaseAggregate {
  if (allConfigs.length === 0 && all.length === 0)
    return { score: 1, verdict: 'pass', gating_violations: [] };
  const kept = all.flatMap((r, i) => (counts(r) ? [i] : []));
  const results = kept.map((i) => all[i]!);
  // AgentV's `required` where a promptfoo config writes it: below its bar the test scores 0.
  const requiredMisses = kept.flatMap((i) => {
    const c = allConfigs[i];
    const r = all[i]!;
    if (!c?.required || r.verdict === 'error') return [];
    const min = c.minScore ?? threshold;
    if (min === null)
      return r.verdict === 'pass' ? [] : [`${r.name}: required, did not pass (the test scores 0)`];
    return r.score + EPSILON < min
      ? [`${r.name}: required, scored ${r.score.toFixed(2)} < ${min} (the test scores 0)`]
      : [];
  });
  const gating = [
    ...requiredMisses,
    ...results.flatMap((e) => e.gating_violations.map((v) => `${e.name} › ${v}`)),
  ];
  const score =
    requiredMisses.length > 0
      ? 0
      : weightedMeanOrZero(results.map((e) => ({ value: e.score, weight: e.weight })));
  let verdict: CaseAggregate['verdict'];
  if (results.some((e) => e.verdict === 'error')) verdict = 'error';
  else if (gating.length > 0) verdict = 'fail';
  else if (threshold !== null) verdict = score + EPSILON >= threshold ? 'pass' : 'fail';
  else verdict = results.every((e) => e.weight === 0 || e.verdict === 'pass') ? 'pass' : 'fail';
  const aggregate: CaseAggregate = { score, verdict, gating_violations: gating };
  if (results.some((e) => e.unstable)) aggregate.unstable = true;
  return aggregate;
}
