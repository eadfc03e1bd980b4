import {
  type CaseResult,
  type CheckResult,
  type EvaluatorResult,
  type RepeatAnswer,
  type SuiteResult,
} from '../core/results.js';
import { compositeVerdict, scoreCase } from '../evaluators/case-scoring.js';
import { combineRepeats } from '../evaluators/repeated-case.js';
import { fixedAggregate } from '../evaluators/evaluate.js';
import { negatedOutcome } from '../evaluators/negate.js';
import { evaluatorVerdict, weightedMeanOrEqual } from '../rubric/scoring.js';
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
      n: r.n,
      kappa: r.kappa!,
      reason: `κ ${fmt(r.kappa!)} (95% ${fmt(r.kappa_low ?? r.kappa!)}..${fmt(r.kappa_high ?? r.kappa!)}) over ${r.n} labels is below min-judge-agreement ${floor}`,
    }));
}

const key = (suite: string, id: string) => JSON.stringify([suite, id]);

/**
 * Advisory checks stop gating: each is kept in the results (marked, with its κ) but left out of
 * its evaluator's score and gates wherever it is judged (a composite's children too), and each
 * result above it is scored again by its own rule, up to the case by its format's rules.
 */
export function applyAdvisory(
  suites: readonly SuiteResult[],
  loaded: readonly EvalSuite[],
  advisory: readonly BelowFloor[],
  /** The pass rate a repeated case must reach (`min-case-pass-rate`, as planned for it). */
  minCasePassRate: (suite: string, id: string) => number,
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
      if (!checks || !evalCase || c.verdict === 'error') return c;
      return c.answers
        ? rescoredRepeats(c, c.answers, checks, evalCase, minCasePassRate(s.path, c.id))
        : rescoredCase(c, checks, evalCase);
    }),
  }));
}

function rescoredCase(
  c: CaseResult,
  advisory: ReadonlyMap<string, BelowFloor>,
  evalCase: Pick<EvalCase, 'scoring' | 'evaluators'>,
): CaseResult {
  const evaluators = rescoredList(c.evaluators, evalCase.evaluators, advisory);
  if (evaluators === c.evaluators) return c;
  const agg = scoreCase(evalCase, evaluators);
  return {
    ...c,
    gating_violations: agg.gating_violations,
    score: agg.score,
    verdict: agg.verdict,
    evaluators,
  };
}

/**
 * A repeated case: each answer is scored again on its own, and the case decided again on their
 * pass rate, as the run decided it.
 */
function rescoredRepeats(
  c: CaseResult,
  answers: readonly RepeatAnswer[],
  advisory: ReadonlyMap<string, BelowFloor>,
  evalCase: Pick<EvalCase, 'scoring' | 'evaluators'>,
  minRate: number,
): CaseResult {
  const rescored = answers.map((a) => rescoredCase(answerAsCase(c, a), advisory, evalCase));
  if (rescored.every((r, i) => r.evaluators === answers[i]!.evaluators)) return c;
  return { ...c, ...combineRepeats(rescored, minRate) };
}

/** One answer of a repeated case as the case it was when judged (what the repeats are combined from). */
function answerAsCase(c: CaseResult, a: RepeatAnswer): CaseResult {
  const one: CaseResult = {
    id: c.id,
    target: c.target,
    verdict: a.verdict,
    score: a.score,
    gating_violations: a.gating_violations,
    evaluators: a.evaluators,
    answer: a.answer,
    duration_ms: a.duration_ms ?? 0,
  };
  if (c.definition_hash !== undefined) one.definition_hash = c.definition_hash;
  if (c.line !== undefined) one.line = c.line;
  if (a.answer_cut) one.answer_cut = a.answer_cut;
  if (a.unstable) one.unstable = true;
  if (a.error !== undefined) one.error = a.error;
  if (a.usage) one.usage = a.usage;
  return one;
}

/** Results in the order their configs are declared (as they are run); the same list when nothing changed. */
function rescoredList(
  results: EvaluatorResult[],
  configs: readonly EvaluatorConfig[],
  advisory: ReadonlyMap<string, BelowFloor>,
): EvaluatorResult[] {
  const out = results.map((r, i) => {
    const config = configs[i]?.name === r.name ? configs[i] : configs.find((x) => x.name === r.name);
    return rescoredEvaluator(r, config, advisory);
  });
  return out.every((r, i) => r === results[i]) ? results : out;
}

function rescoredEvaluator(
  e: EvaluatorResult,
  config: EvaluatorConfig | undefined,
  advisory: ReadonlyMap<string, BelowFloor>,
): EvaluatorResult {
  if (e.verdict === 'error') return e;
  if (e.type === 'composite' && e.children)
    return rescoredComposite(e, e.children, config?.type === 'composite' ? config : undefined, advisory);
  if (e.type !== 'llm_judge' || !e.checks) return e;
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
 * A composite whose children held an advisory check: its gates are the children's again, and a
 * fixed aggregator (`weighted_average`, `all_or_nothing`) scores it again. A script or judge
 * aggregator is not asked again (the run does not call it twice): its score stands, and a
 * warning says it was given the advisory check's part.
 */
function rescoredComposite(
  e: EvaluatorResult,
  was: EvaluatorResult[],
  config: CompositeConfig | undefined,
  advisory: ReadonlyMap<string, BelowFloor>,
): EvaluatorResult {
  const children = rescoredList(was, config?.children ?? [], advisory);
  if (children === was) return e;
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
