import {
  type CaseResult,
  type CheckResult,
  type EvaluatorResult,
  type RepeatAnswer,
  type SuiteResult,
} from '../core/results.js';
import {
  compositeVerdict,
  counts,
  decidedByAdvisoryOnly,
  scoreCase,
  weighsIn,
} from '../evaluators/case-scoring.js';
import { answerAsCase, combineRepeats } from '../evaluators/repeated-case.js';
import { type RepeatRule } from '../core/repeat-setting.js';
import { fixedAggregate } from '../evaluators/evaluate.js';
import { negatedOutcome } from '../evaluators/negate.js';
import { checkViolation, evaluatorVerdict, verdictForScore, weightedMeanOrEqual } from '../rubric/scoring.js';
import { type CompositeConfig, type EvalCase, type EvalSuite, type EvaluatorConfig } from '../suite/types.js';
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
      evaluator: r.evaluator,
      ...(r.qualified !== undefined ? { qualified: r.qualified } : {}),
      n: r.n,
      kappa: r.kappa!,
      reason: `κ ${fmt(r.kappa!)} (95% ${fmt(r.kappa_low ?? r.kappa!)}..${fmt(r.kappa_high ?? r.kappa!)}) over ${r.n} labels is below min-judge-agreement ${floor}`,
    }));
}

const key = (suite: string, id: string) => JSON.stringify([suite, id]);
/** One check of one evaluator within a case: the names down to its judge, and its id. */
const checkKey = (evaluator: readonly string[], check: string) => JSON.stringify([evaluator, check]);

/** A case's advisory checks, by `checkKey`. */
type Advisory = ReadonlyMap<string, BelowFloor>;

/**
 * Advisory checks stop gating: each is kept in the results (marked, with its κ) but left out of
 * its evaluator's score and gates, and each result above it is scored again by its own rule, up
 * to the case by its format's rules. A check is the one the labels measured: that id in that
 * evaluator (by the names from the case down), never another evaluator's item of the same id.
 * An evaluator left with no check that gates holds no evidence (`advisory`): it takes no part in
 * the score or verdict above it.
 */
export function applyAdvisory(
  suites: readonly SuiteResult[],
  loaded: readonly EvalSuite[],
  advisory: readonly BelowFloor[],
  /** How a repeated case is decided (its `repeat` and `min-case-pass-rate`, as planned for it). */
  repeatRule: (suite: string, id: string) => RepeatRule,
): SuiteResult[] {
  if (advisory.length === 0) return [...suites];
  const byCase = new Map<string, Map<string, BelowFloor>>();
  for (const a of advisory) {
    const k = key(a.suite, a.id);
    if (!byCase.has(k)) byCase.set(k, new Map());
    byCase.get(k)!.set(checkKey(a.evaluator, a.check), a);
  }
  return suites.map((s, si) => ({
    ...s,
    cases: s.cases.map((c) => {
      const checks = byCase.get(key(s.path, c.id));
      const evalCase = (loaded.find((l) => l.path === s.path) ?? loaded[si])?.cases.find(
        (x) => x.id === c.id,
      );
      if (!checks || !evalCase || c.verdict === 'error') return c;
      return c.answers
        ? rescoredRepeats(c, c.answers, checks, evalCase, repeatRule(s.path, c.id))
        : rescoredCase(c, checks, evalCase);
    }),
  }));
}

function rescoredCase(
  c: CaseResult,
  advisory: Advisory,
  evalCase: Pick<EvalCase, 'scoring' | 'evaluators'>,
): CaseResult {
  const evaluators = rescoredList(c.evaluators, evalCase.evaluators, advisory, []);
  if (evaluators === c.evaluators) return c;
  const agg = scoreCase(evalCase, evaluators);
  return {
    ...c,
    gating_violations: agg.gating_violations,
    score: agg.score,
    verdict: agg.verdict,
    evaluators,
    ...(agg.verdict === 'borderline' && decidedByAdvisoryOnly(evaluators) ? { advisory_only: true } : {}),
  };
}

/**
 * A repeated case: each answer is scored again on its own, and the case decided again on their
 * pass rate, as the run decided it.
 */
function rescoredRepeats(
  c: CaseResult,
  answers: readonly RepeatAnswer[],
  advisory: Advisory,
  evalCase: Pick<EvalCase, 'scoring' | 'evaluators'>,
  rule: RepeatRule,
): CaseResult {
  const rescored = answers.map((a) => rescoredCase(answerAsCase(c, a), advisory, evalCase));
  if (rescored.every((r, i) => r.evaluators === answers[i]!.evaluators)) return c;
  const combined = { ...c, ...combineRepeats(rescored, rule) };
  // No answer was judged by a check that gates: the pass rate of borderline answers is no evidence either.
  const noEvidence = rescored.every((r) => r.verdict === 'borderline' && decidedByAdvisoryOnly(r.evaluators));
  return noEvidence ? { ...combined, verdict: 'borderline', advisory_only: true } : combined;
}

/** Results in the order their configs are declared (as they are run); the same list when nothing changed. */
function rescoredList(
  results: EvaluatorResult[],
  configs: readonly EvaluatorConfig[],
  advisory: Advisory,
  above: readonly string[],
): EvaluatorResult[] {
  const out = results.map((r, i) => {
    const config = configs[i]?.name === r.name ? configs[i] : configs.find((x) => x.name === r.name);
    return rescoredEvaluator(r, config, advisory, [...above, r.name]);
  });
  return out.every((r, i) => r === results[i]) ? results : out;
}

function rescoredEvaluator(
  e: EvaluatorResult,
  config: EvaluatorConfig | undefined,
  advisory: Advisory,
  path: readonly string[],
): EvaluatorResult {
  if (e.verdict === 'error') return e;
  if (e.type === 'composite' && e.children)
    return rescoredComposite(
      e,
      e.children,
      config?.type === 'composite' ? config : undefined,
      advisory,
      path,
    );
  if (e.type !== 'llm_judge' || !e.checks) return e;
  const of = (c: CheckResult) => advisory.get(checkKey(path, c.id));
  if (!e.checks.some(of)) return e;
  const checks: CheckResult[] = e.checks.map((c) => {
    const a = of(c);
    return a ? { ...c, advisory: a.reason } : c;
  });
  const gating = checks.filter((c) => !c.advisory);
  const value = (c: CheckResult) => (c.satisfied !== undefined ? (c.satisfied ? 1 : 0) : (c.score ?? 0) / 10);
  // Exactly the violations the advisory checks made (the scorer's own text for each), nothing else.
  const lifted = new Set(checks.filter((c) => c.advisory).map(checkViolation));
  const violations = e.gating_violations.filter((v) => !lifted.has(v));
  if (gating.length === 0) return noEvidence(e, checks, violations, 'every check is advisory');
  const score = weightedMeanOrEqual(gating.map((c) => ({ value: value(c), weight: c.weight })));
  const own = {
    ...e,
    checks,
    score,
    verdict: evaluatorVerdict(score, violations),
    gating_violations: violations,
  };
  return e.negated ? { ...own, ...negatedOutcome(own) } : own;
}

/**
 * An evaluator with no check that gates: no evidence, so it keeps the score and verdict its
 * judge gave (shown) but is marked `advisory` and left out of every score and verdict above it.
 * It is not negated again: negating no evidence gives no evidence.
 */
function noEvidence(
  e: EvaluatorResult,
  checks: CheckResult[] | undefined,
  violations: string[],
  why: string,
): EvaluatorResult {
  const out: EvaluatorResult = {
    ...e,
    verdict: e.verdict === 'fail' && violations.length === 0 ? verdictForScore(e.score) : e.verdict,
    gating_violations: violations,
    advisory: `${why}: not counted in the score or verdict`,
  };
  if (checks) out.checks = checks;
  return out;
}

/**
 * A composite whose children held an advisory check: its gates are the children's again, and a
 * fixed aggregator (`weighted_average`, `all_or_nothing`) scores it again. A script or judge
 * aggregator is not asked again (the run does not call it twice): its score stands, and a
 * warning says it was given the advisory check's part.
 */
function rescoredComposite(
  e: EvaluatorResult,
  was: EvaluatorResult[],
  config: CompositeConfig | undefined,
  advisory: Advisory,
  path: readonly string[],
): EvaluatorResult {
  const children = rescoredList(was, config?.children ?? [], advisory, path);
  if (children === was) return e;
  // No part that both counts and weighs: the composite holds no evidence (a weighted average of
  // nothing would score 0 and fail the case on the advisory check).
  if (!children.some((c) => counts(c) && (!config || weighsIn(config, c))))
    return noEvidence({ ...e, children }, undefined, [], 'every part is advisory');
  const gating = children.flatMap((c) => c.gating_violations.map((v) => `${c.name} › ${v}`));
  const fixed = config ? fixedAggregate(config, children) : undefined;
  const score = fixed?.score ?? (e.negated ? 1 - e.score : e.score);
  const own: EvaluatorResult = {
    ...e,
    children,
    score,
    verdict: compositeVerdict(config ?? {}, score, children, gating),
    gating_violations: gating,
  };
  if (fixed) own.reasoning = fixed.reasoning;
  else
    own.warnings = [
      ...(e.warnings ?? []),
      `aggregator${config ? ` ${config.aggregator.type}` : ''} not asked again: its score still counts the advisory ${advisoryIn(children).join(', ')}`,
    ];
  return e.negated ? { ...own, ...negatedOutcome(own) } : own;
}

/** The advisory checks' ids anywhere under these results. */
function advisoryIn(results: readonly EvaluatorResult[]): string[] {
  return results.flatMap((r) => [
    ...(r.checks ?? []).filter((c) => c.advisory).map((c) => c.id),
    ...advisoryIn(r.children ?? []),
  ]);
}
