import path from 'node:path';
import { type Config } from '../config.js';
import { type Diagnostic } from '../diagnostics.js';
import { type EndpointConfig } from '../judge/chat.js';
import { definitionHash } from '../suite/definition-hash.js';
import { type MarkdownRubric } from '../suite/markdown-rubric.js';
import { type EvalCase, type EvalSuite } from '../suite/types.js';
import { type CaseTarget, planTargets, type TargetPlan } from '../targets/plan.js';
import { type TargetRunner } from '../targets/providers.js';
import { type RunContext } from './context.js';
import { defaultJudgeEndpoint, usesLlm } from './judge-endpoint.js';
import { type LoadedInputs } from './load.js';

/** One case this run executes, with everything decided about it before any call. */
export interface PlannedCase {
  suite: EvalSuite;
  suiteIndex: number;
  evalCase: EvalCase;
  caseIndex: number;
  target: CaseTarget;
  /** CONTRACTS §7: what decides the grade, hashed. */
  definitionHash: string;
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
  /** The judge for cases whose target names no `judge_target`, and for the markdown rubric. */
  defaultEndpoint: EndpointConfig | null;
  /** Everything load and plan found; any error means nothing runs. */
  diagnostics: Diagnostic[];
}

const hasErrors = (ds: readonly Diagnostic[]) => ds.some((d) => d.severity === 'error');

/**
 * Stage 2, plan: which target answers each case and which judge grades it, decided before any
 * call. Only targets a run uses are resolved, and only when everything loaded cleanly.
 */
export function planRun(
  loaded: LoadedInputs,
  config: Config,
  ctx: Pick<RunContext, 'ws' | 'env' | 'runnerDeps'> & Partial<Pick<RunContext, 'settings'>>,
  /** `validate` runs where secrets may not be set: an unset `${{ VAR }}` only warns there. */
  options: { unsetEnv?: 'error' | 'warning' } = {},
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
      env: ctx.env,
      deps: ctx.runnerDeps,
      unsetEnv: options.unsetEnv,
    });
    diagnostics.push(...r.diagnostics);
    targets = r.plan;
  }
  const needsJudge =
    (loaded.rubric && loaded.rubric.criteria.length + loaded.rubric.niceToHave.length > 0) ||
    loaded.suites.some((s) =>
      s.cases.some((c) => c.evaluators.some(usesLlm) && !targets?.forCase(s, c)?.judge),
    );
  const judge = defaultJudgeEndpoint(config, !!needsJudge, ctx.settings);
  diagnostics.push(...judge.diagnostics);
  const cases = targets && !hasErrors(diagnostics) ? planCases(loaded.suites, targets, ctx.ws.root) : [];
  return {
    suites: loaded.suites,
    rubric: loaded.rubric,
    cases,
    runners: targets?.runners ?? [],
    defaultEndpoint: judge.endpoint,
    diagnostics,
  };
}

/** Every case of every suite, in suite then position order, with its target and definition hash. */
function planCases(suites: readonly EvalSuite[], targets: TargetPlan, root: string): PlannedCase[] {
  return suites.flatMap((suite, suiteIndex) =>
    suite.cases.map((evalCase, caseIndex) => {
      const target = targets.forCase(suite, evalCase);
      return {
        suite,
        suiteIndex,
        evalCase,
        caseIndex,
        target,
        definitionHash: definitionHash(evalCase, target.runner.name, root),
      };
    }),
  );
}
