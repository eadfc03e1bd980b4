import { setMaxListeners } from 'node:events';
import { type Config } from '../config/config.js';
import { Redactor, secretsFromEnv } from '../exec/redact.js';
import { errorLine } from '../report/case-reason.js';
import { invalidInputResults } from '../report/results-file.js';
import { aggregateResults } from './aggregate.js';
import { compareStage } from './compare.js';
import { stampClusters } from './clusters.js';
import { createRunContext, type RunContext } from './context.js';
import { executePlan } from './execute.js';
import { judgeInfo } from './judge-endpoint.js';
import { judgeRecorded } from './judge-recorded.js';
import { type RunIO } from './run-io.js';
import { loadInputs } from './load.js';
import { mergeShards } from './merge.js';
import { applyPassRates } from './pass-rate.js';
import { budgetProblems, withSpend } from './budget.js';
import { planProblems, planRun } from './plan.js';
import { finishRun, type ReportedRun, type RunOutcome } from './finish.js';
import { readShardFiles } from './shard-file.js';
import { RubricEvalError } from '../core/errors.js';
import { addUsage, type RunResults } from '../core/results.js';
import { calibrationStep } from './calibrate.js';
import { mergeCalibration } from './merge-calibration.js';

const noSubject = () =>
  Promise.reject(new RubricEvalError('no subject to judge: not a pull request and no diff given'));

/**
 * The pipeline, wired: load+validate → plan → execute → aggregate → compare → results. Nothing is
 * called while anything is invalid. Never throws for bad input or a misbehaving model: problems
 * end up in the results, and an error is never a pass.
 */
export async function runEvaluation(config: Config, io: RunIO): Promise<RunOutcome> {
  if (config.merge && config.merge.length > 0) return mergeEvaluation(config, config.merge, io);
  if (io.recorded) return judgeRecorded(config, io.recorded, io);
  const started = Date.now();
  const hooks = io.hooks ?? {};
  // Every call in flight listens on the run's signal: up to `concurrency` listeners, legitimately.
  if (io.signal) setMaxListeners(0, io.signal);
  const phase = hooks.phase ?? (<T>(_n: string, fn: () => Promise<T>) => fn());
  const ctx = createRunContext(config, io);
  const plan = await phase('Load and validate', async () =>
    planRun(await loadInputs(config, ctx.ws, ctx), config, ctx),
  );
  const { errors, warnings, warningLines } = planProblems(plan);
  errors.push(...budgetProblems(config.budgetUsd, plan.defaultEndpoint, ctx.judges.prices));
  if (errors.length === 0) for (const w of warningLines) ctx.warn(w);
  const calibration = await calibrationStep(config, plan, ctx, errors, io.calibrationLabels);
  // Invalid input: nothing is judged, the run fails, and the results say why.
  const executed =
    errors.length > 0
      ? { suites: [], rubric: null, partial: ctx.signal?.aborted ?? false }
      : await phase('Evaluate', () =>
          calibration.around(
            executePlan(plan, {
              ...ctx,
              cwd: ctx.ws.root,
              concurrency: config.concurrency,
              subject: io.subject ?? noSubject,
              history: io.history ?? [],
              progress: hooks.progress,
              untrustedFork: config.untrustedFork ?? false,
            }),
          ),
        );
  stampClusters(executed.suites, plan.suites);
  await ctx.judges.settle();
  const cacheNotice = ctx.judges.cacheNotice(ctx.ws, ctx.settings);
  if (cacheNotice) {
    warnings.push(cacheNotice);
    ctx.warn(cacheNotice);
  }
  const aggregated = aggregateResults({
    ...executed,
    errors,
    warnings,
    judge: judgeInfo(plan.defaultEndpoint),
    history: await (io.history ?? []),
    commit: io.commit ?? null,
    started,
    shard: plan.shard ?? undefined,
  });
  const results = withSpend(applyPassRates(aggregated, config.minPassRate), ctx.spend);
  if ('calibration' in executed && executed.calibration) {
    results.calibration = executed.calibration;
    addUsage(results.usage, executed.calibration.usage);
  }
  const compared = await compare(results, config, ctx, io);
  return finishRun(compared, {
    diagnostics: plan.diagnostics,
    redactor: ctx.redactor,
    stats: ctx.judges.stats(),
    executed: errors.length === 0,
  });
}

/**
 * A merge, wired: shard results files replace load..execute; aggregate, compare and results are
 * the same as for a single run. Runs no gate, target or judge.
 */
async function mergeEvaluation(config: Config, globs: string[], io: RunIO): Promise<RunOutcome> {
  const started = Date.now();
  const ctx = createRunContext(config, io);
  if (config.suites.length > 0 || config.rubric)
    ctx.warn(
      'merge: `suites` and `rubric` are ignored; the shards ran them, the merge only combines their results',
    );
  const read = await readShardFiles(globs, ctx.ws, config.resultsFile || null);
  const merged = mergeShards(read.files, read.errors);
  for (const w of merged.warnings) ctx.warn(w);
  const calibration = mergeCalibration(read.files);
  merged.errors.push(...calibration.errors);
  for (const w of calibration.warnings) ctx.warn(w);
  merged.warnings.push(...calibration.warnings);
  const results = applyPassRates(
    aggregateResults({
      ...merged,
      history: await (io.history ?? []),
      commit: io.commit ?? null,
      started: merged.started ?? started,
    }),
    config.minPassRate,
  );
  results.shards = merged.shards;
  // What every shard measured alike; `fail-on: calibration` reads it as in a single run.
  if (calibration.calibration && merged.errors.length === 0) {
    results.calibration = calibration.calibration;
    addUsage(results.usage, calibration.calibration.usage);
  }
  const compared = await compare(results, config, ctx, io);
  return finishRun(compared, {
    diagnostics: [],
    redactor: ctx.redactor,
    stats: merged.stats,
    executed: merged.executed,
  });
}

/** The compare stage, wired the same way for a run and a merge. */
function compare(results: RunResults, config: Config, ctx: RunContext, io: RunIO): Promise<RunResults> {
  return compareStage(results, config, {
    ws: ctx.ws,
    finder: io.baseline,
    warn: ctx.warn,
    signal: io.signal,
  });
}

/**
 * The engine, with a bug of ours turned into a failed run that says so in one line (in the
 * report and the results file); the stack goes to the log only.
 */
export async function evaluateOrExplain(
  config: Config,
  io: RunIO,
  log: { error(message: string): void; info(message: string): void },
): Promise<ReportedRun> {
  try {
    return await runEvaluation(config, io);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error(`rubric-eval: internal error: ${errorLine(message)}`);
    log.info((err as Error).stack ?? message);
    return {
      results: invalidInputResults([`internal error: ${errorLine(message)}`]),
      redactor: new Redactor(secretsFromEnv(io.env)),
      diagnostics: [],
    };
  }
}
