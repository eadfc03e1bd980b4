import path from 'node:path';
import { type Config } from './config.js';
import { type Diagnostic } from './diagnostics.js';
import { findSuiteFiles, loadSuites } from './suite/discover.js';
import { type MarkdownRubric, rubricFromInput } from './suite/markdown-rubric.js';
import { type EvalSuite } from './suite/types.js';
import { type Workspace } from './suite/workspace.js';
import { loadAnswersFile, matchAnswers } from './targets/answers-file.js';
import { planTargets, type TargetPlan } from './targets/plan.js';
import { type RunnerDeps, type TargetRunner } from './targets/providers.js';

export interface PreflightResult {
  suites: EvalSuite[];
  rubric: MarkdownRubric | undefined;
  /** Which target answers each case; undefined when there are no cases or anything is invalid. */
  plan: TargetPlan | undefined;
  diagnostics: Diagnostic[];
}

export interface PreflightOptions {
  ws: Workspace;
  env: NodeJS.ProcessEnv;
  /** What target runners are built with; nothing runs during the pre-flight. */
  deps: RunnerDeps;
  /** `validate` runs where secrets may not be set: an unset `${{ VAR }}` only warns there. */
  unsetEnv?: 'error' | 'warning';
}

/**
 * Everything `run` checks before its first call, and all `validate` does: suites, the markdown
 * rubric, the answers file against the cases, and each case's target and provider. Every problem
 * of every file is collected; nothing is executed and no model is called.
 */
export async function preflight(config: Config, opts: PreflightOptions): Promise<PreflightResult> {
  const { ws } = opts;
  const diagnostics: Diagnostic[] = [];
  let suites: EvalSuite[] = [];
  if (config.suites.length > 0) {
    const found = await findSuiteFiles(config.suites, ws.root);
    diagnostics.push(...found.diagnostics);
    const r = loadSuites(found.files, ws);
    diagnostics.push(...r.diagnostics);
    suites = r.suites;
  }
  let rubric: MarkdownRubric | undefined;
  if (config.rubric) {
    const r = rubricFromInput(config.rubric, ws, ws.root);
    diagnostics.push(...r.diagnostics);
    rubric = r.rubric;
  }
  const cases = suites.flatMap((s) => s.cases);
  let answers: TargetRunner | null = null;
  if (config.answersFile) {
    const abs = path.resolve(ws.root, config.answersFile);
    const r = loadAnswersFile(abs, ws);
    diagnostics.push(...r.diagnostics);
    answers = r.runner ?? null;
    if (r.lines && cases.length > 0) diagnostics.push(...matchAnswers(ws.display(abs), r.lines, cases));
  }
  let plan: TargetPlan | undefined;
  // Targets of the suites that loaded, even when another file is invalid: all problems in one round.
  if (cases.length > 0) {
    const r = planTargets(suites, {
      ws,
      targetsFile: config.targets ? path.resolve(ws.root, config.targets) : null,
      targetOverride: config.target,
      answers,
      env: opts.env,
      deps: opts.deps,
      unsetEnv: opts.unsetEnv,
    });
    diagnostics.push(...r.diagnostics);
    plan = r.plan;
  }
  return { suites, rubric, plan, diagnostics };
}
