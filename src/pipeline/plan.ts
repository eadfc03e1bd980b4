import path from 'node:path';
import { type Config } from '../config/config.js';
import { type Diagnostic, formatDiagnostic, formatWithoutLevel } from '../core/diagnostics.js';
import { type EndpointConfig } from '../judge/chat.js';
import { definitionHash, ScriptDigests } from '../suite/definition-hash.js';
import { type MarkdownRubric } from '../checker/markdown-rubric.js';
import { type EvalCase, type EvalSuite } from '../suite/types.js';
import { DEFAULT_MIN_CASE_PASS_RATE, type RepeatSetting } from '../core/repeat-setting.js';
import { type CaseTarget, planTargets, type TargetPlan } from '../targets/plan.js';
import { type TargetRunner } from '../targets/providers.js';
import { type RunContext } from './context.js';
import { caseUsesLlm, defaultJudgeEndpoint } from './judge-endpoint.js';
import { comparedTogether, compareProblems } from './compare-plan.js';
import { type LoadedInputs } from './load.js';
import { comparePlanPosition, inShard, type PlanEntry, planHash, type ShardInfo } from './shard.js';

/** One case this run executes, with everything decided about it before any call. */
export interface PlannedCase {
  suite: EvalSuite;
  suiteIndex: number;
  evalCase: EvalCase;
  caseIndex: number;
  target: CaseTarget;
  /** What decides the grade, hashed: a baseline compares only cases whose hashes are equal. */
  definitionHash: string;
  /** Answers to ask of the target (README "Repeats"): the `repeat` input, else the suite's, else 1. */
  repeat?: RepeatSetting;
  /** The pass rate a repeated case must be shown to reach (`min-case-pass-rate`). */
  minCasePassRate?: number;
}

/** What this run will do: the cases, their targets and judges, or the reasons it cannot start. */
export interface RunPlan {
  /** Every loaded suite, in load order (its results list keeps them all, even with no case here). */
  suites: EvalSuite[];
  rubric: MarkdownRubric | undefined;
  /** The cases that run here, in plan order; empty when the plan has errors. */
  cases: PlannedCase[];
  /** Target runners used by the planned cases (each is health-checked once). */
  runners: TargetRunner[];
  /** The run's one judge (the workflow's): every case and the markdown rubric. */
  defaultEndpoint: EndpointConfig | null;
  /** A fork's pull request without a judge credential: cases that need the judge are skipped. */
  judgeUnavailable?: boolean;
  /** Everything load and plan found; any error means nothing runs. */
  diagnostics: Diagnostic[];
  /** Set when this run is one shard of a plan (the markdown rubric then runs in shard 1 only). */
  shard: ShardInfo | null;
}

const hasErrors = (ds: readonly Diagnostic[]) => ds.some((d) => d.severity === 'error');

/**
 * The plan's problems as the results file lists them (any error means nothing ran), and the
 * warnings as logged: the log hook says they are warnings, so the line does not say it again.
 */
export function planProblems(plan: Pick<RunPlan, 'diagnostics'>): {
  errors: string[];
  warnings: string[];
  warningLines: string[];
} {
  const warnings = plan.diagnostics.filter((d) => d.severity === 'warning');
  return {
    errors: plan.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic),
    warnings: warnings.map(formatDiagnostic),
    warningLines: warnings.map(formatWithoutLevel),
  };
}

/**
 * Stage 2, plan: which target answers each case and which judge grades it, decided before any
 * call. Only targets a run uses are resolved, and only when everything loaded cleanly.
 */
export function planRun(
  loaded: LoadedInputs,
  config: Config,
  ctx: Pick<RunContext, 'ws' | 'env' | 'runnerDeps'> & Partial<Pick<RunContext, 'settings' | 'mask'>>,
  /**
   * `validate` runs where secrets may not be set: an unset `${{ VAR }}` only warns there.
   * `noJudge`: the record stage, which judges nothing, needs no judge credentials.
   */
  options: { unsetEnv?: 'error' | 'warning'; noJudge?: boolean } = {},
): RunPlan {
  const diagnostics = [...loaded.diagnostics];
  let targets: TargetPlan | undefined;
  // The targets of the suites that loaded, even when another file is invalid: every problem in one round.
  if (loaded.suites.some((s) => s.cases.length > 0)) {
    const r = planTargets(loaded.suites, {
      ws: ctx.ws,
      targetsFile: config.targets ? path.resolve(ctx.ws.root, config.targets) : null,
      targetOverride: config.target,
      answers: loaded.answers,
      // Templates read what a gate's process gets, not the action's environment (tokens, inputs).
      env: ctx.runnerDeps.childEnv,
      processEnv: ctx.env,
      onSecret: (v) => {
        for (const part of ctx.runnerDeps.redactor.add([v])) ctx.mask?.(part);
      },
      deps: ctx.runnerDeps,
      unsetEnv: options.unsetEnv,
    });
    diagnostics.push(...r.diagnostics);
    targets = r.plan;
  }
  const needsJudge =
    (loaded.rubric && loaded.rubric.criteria.length + loaded.rubric.niceToHave.length > 0) ||
    loaded.suites.some((s) => s.cases.some(caseUsesLlm));
  // Decided from every suite, not the shard's cases: an input error fails every shard the same way.
  // The record stage calls no judge: it needs no credentials for one.
  const judge = defaultJudgeEndpoint(config, !!needsJudge && !options.noJudge, ctx.settings);
  diagnostics.push(...judge.diagnostics);
  const order = planOrder(loaded.suites, targets, config.target, ctx.ws.root);
  const spec = config.shard ?? null;
  // The record stage compares nothing: the judge stage compares every shard's recorded answers.
  if (!options.noJudge)
    diagnostics.push(...compareProblems(order, { shard: spec, repeat: config.repeat ?? null }));
  const mine = spec ? order.filter((_, k) => inShard(k, spec)) : order;
  const runnable = targets && !hasErrors(diagnostics) ? targets : undefined;
  const cases: PlannedCase[] = runnable
    ? mine.map((o) => ({
        suite: o.suite,
        suiteIndex: o.suiteIndex,
        evalCase: o.evalCase,
        caseIndex: o.caseIndex,
        target: runnable.forCase(o.evalCase),
        definitionHash: o.definitionHash,
        repeat: config.repeat ?? o.suite.repeat ?? 1,
        minCasePassRate: config.minCasePassRate ?? DEFAULT_MIN_CASE_PASS_RATE,
      }))
    : [];
  const used = new Set(cases.map((c) => c.target.runner));
  return {
    suites: loaded.suites,
    rubric: spec && spec.index !== 1 ? undefined : loaded.rubric,
    cases,
    runners: (runnable?.runners ?? []).filter((r) => used.has(r)),
    defaultEndpoint: judge.endpoint,
    ...(judge.unavailable ? { judgeUnavailable: true } : {}),
    diagnostics,
    shard: spec ? { ...spec, plan_hash: planHash(order.map(planEntry)), planned: order.length } : null,
  };
}

type OrderedCase = Omit<PlannedCase, 'target'>;

const planEntry = (o: OrderedCase): PlanEntry => ({
  suite: o.suite.path,
  id: o.evalCase.id,
  definition_hash: o.definitionHash,
});

/**
 * Every case of every suite in plan order (suite path, then position), with its definition hash.
 * The target hashed is the one that answers the case, by name and definition; when targets could
 * not be planned (the run fails anyway), the name the suites ask for, so every shard still agrees
 * on the plan.
 */
function planOrder(
  suites: readonly EvalSuite[],
  targets: TargetPlan | undefined,
  override: string | null,
  root: string,
): OrderedCase[] {
  const scripts = new ScriptDigests(root);
  const all = suites.flatMap((suite, suiteIndex) =>
    suite.cases.map((evalCase, caseIndex) => {
      const planned = targets?.forCase(evalCase);
      const target = {
        name: planned?.runner.name ?? override ?? evalCase.target ?? suite.target ?? 'default',
        definition: planned?.definition ?? null,
      };
      const hash = definitionHash(evalCase, target, root, scripts);
      return { suite, suiteIndex, evalCase, caseIndex, definitionHash: hash };
    }),
  );
  comparedTogether(all);
  // The comparison builds nothing per call: 10,000 cases make ~130,000 of them.
  return all.sort((a, b) => comparePlanPosition(a.suite.path, a.caseIndex, b.suite.path, b.caseIndex));
}
