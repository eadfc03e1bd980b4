import path from 'node:path';
import { dirRefusal } from './core/safe-write.js';
import { configFromInputs, INPUT_NAMES, parseInputs } from './config/config.js';
import { withLines } from './exec/redact.js';
import { defaultCacheDir } from './judge/cache-place.js';
import * as core from './github/workflow-commands.js';
import { connectGitHub } from './github/connect.js';
import { actionRunContext, isForkPullRequest, readEventPayload } from './github/run-context.js';
import { evaluateOrExplain } from './pipeline/run.js';
import { invalidInputResults, writeResultsOrFallback } from './report/results-file.js';
import { judgeStageAction, recordStageAction } from './action/trusted-stage.js';
import { failInvalidInputs, reportRun } from './action/report-run.js';
import { reapBeforeReport, runStep } from './action/step-lifecycle.js';

/**
 * The action, thin: its inputs read and checked, turned into a Config, the stage chosen and the
 * engine called. Around it the step's lifecycle (action/step-lifecycle.ts); after it the run told
 * to the runner (action/report-run.ts), where the verdict alone decides the check.
 */
export async function run(): Promise<void> {
  await runStep(runAction);
}

async function runAction(signal: AbortSignal): Promise<void> {
  core.info('rubric-eval: starting');
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, core.getInput(name)]));
  const parsed = parseInputs(raw);
  const payload = readEventPayload(process.env);
  const ctx = actionRunContext(process.env, payload, process.cwd());
  if ('errors' in parsed) return failInvalidInputs(raw, parsed.errors, ctx.workspace);
  const i = parsed.inputs;
  for (const secret of [i['judge-api-key'], i['github-token']])
    for (const part of withLines(secret ?? '')) if (part.length >= 6) core.setSecret(part);

  const workingDirectory = path.resolve(ctx.workspace, i['working-directory']);
  const resultsFile = path.resolve(workingDirectory, i['results-file']);
  const config = configFromInputs(i, {
    workingDirectory,
    resultsFile,
    cacheDir: i['cache-dir'] ?? defaultCacheDir(process.env),
  });
  config.untrustedFork = isForkPullRequest(process.env, payload);
  const cacheRefused = config.cacheDir ? dirRefusal(path.resolve(workingDirectory, config.cacheDir)) : null;
  if (cacheRefused) warn(`cache-dir: ${cacheRefused}; no judge answer is cached by this run`);
  // The trusted stage's two halves (README "The trusted stage"): the same stages, wired apart.
  if (i.stage === 'record') return recordStageAction(config, ctx, signal);
  // A results file already there (the checkout may hold one) must not outlive a run that dies:
  // a failing one stands in until this run writes its own.
  writeResultsOrFallback(
    resultsFile,
    invalidInputResults(['rubric-eval started but did not finish; this file is replaced when it does']),
  );

  if (i.stage === 'judge')
    return judgeStageAction(i, config, ctx, payload, {
      signal,
      report: (outcome, prCtx, surface) =>
        reportRun(outcome, config, prCtx, { surface, mode: i.comment, signal, inputs: i }),
    });
  const github = connectGitHub(ctx, i, config, { warn, signal });
  const outcome = await evaluateOrExplain(
    config,
    {
      env: process.env,
      signal,
      subject: github.subject,
      baseline: github.baseline,
      calibrationLabels: github.calibrationLabels,
      history: github.history,
      commit: ctx.commit,
      hooks: {
        info,
        warn,
        mask: (secret) => core.setSecret(secret),
        progress: (p) => info(`[${p.done}/${p.total}] ${p.caseId} ${p.verdict} ${p.score.toFixed(2)}`),
        phase: (name, fn) => core.group(name, fn),
      },
    },
    { error: (m) => core.error(m), info },
  );
  reapBeforeReport();
  const surface = await github.surface;
  await reportRun(outcome, config, ctx, { surface, mode: i.comment, signal, inputs: i });
}

const warn = (m: string) => core.warning(m);
const info = (m: string) => core.info(m);
