import { setMaxListeners } from 'node:events';
import { type Config } from '../config/config.js';
import { type Diagnostic } from '../core/diagnostics.js';
import { type GateResult } from '../core/results.js';
import { type Redactor } from '../exec/redact.js';
import { runGates } from '../checker/run-checker.js';
import { createRunContext, type RunContext } from './context.js';
import { answerCase } from './execute-case.js';
import { healthChecks } from './execute.js';
import { loadInputs } from './load.js';
import { type PlannedCase, planProblems, planRun, type RunPlan } from './plan.js';
import { type RecordBundle, type RecordedAnswer, type RecordedGate } from './record-bundle.js';
import { planHash } from './shard.js';
import { type RunIO } from './run-io.js';

/** Where the recorded run happened, as the pull request's event says (the judge stage checks it). */
export interface RecordOrigin {
  repository: string | null;
  prNumber: number | null;
  headSha: string | null;
  baseSha: string | null;
}

export interface RecordOutcome {
  bundle: RecordBundle;
  diagnostics: Diagnostic[];
  redactor: Redactor;
  /** Cancelled before every case was answered: the bundle is partial. */
  partial: boolean;
}

/**
 * `stage: record`, wired: load+validate → plan → answers and gates → bundle. The first two stages
 * are the ones every run uses; no judge is called (none is even needed), nothing is posted.
 * Problems that stop the recording are written into the bundle, so the judge stage can say why.
 */
export async function recordEvaluation(
  config: Config,
  io: RunIO,
  origin: RecordOrigin,
): Promise<RecordOutcome> {
  const hooks = io.hooks ?? {};
  if (io.signal) setMaxListeners(0, io.signal);
  const phase = hooks.phase ?? (<T>(_n: string, fn: () => Promise<T>) => fn());
  const ctx = createRunContext(config, io);
  const plan = await phase('Load and validate', async () =>
    planRun(await loadInputs(config, ctx.ws, ctx), config, ctx, { noJudge: true }),
  );
  const { errors, warningLines } = planProblems(plan);
  if (errors.length === 0) for (const w of warningLines) ctx.warn(w);
  const [answers, gates] =
    errors.length > 0
      ? [[], []]
      : await phase('Answers and gates', () =>
          Promise.all([recordAnswers(plan, ctx, config.concurrency), recordGates(plan, ctx)]),
        );
  const bundle: RecordBundle = {
    record: 1,
    repository: origin.repository,
    pr_number: origin.prNumber,
    head_sha: origin.headSha,
    base_sha: origin.baseSha,
    // A shard's hash is the whole plan's, as its results file's is: every shard of one run agrees.
    plan_hash:
      plan.shard?.plan_hash ??
      planHash(
        plan.cases.map((c) => ({
          suite: c.suite.path,
          id: c.evalCase.id,
          definition_hash: c.definitionHash,
        })),
      ),
    ...(plan.shard
      ? { shard: { index: plan.shard.index, total: plan.shard.total, planned: plan.shard.planned } }
      : {}),
    answers,
    gates,
    ...(errors.length > 0 ? { errors } : {}),
  };
  await ctx.judges.settle();
  return {
    bundle: ctx.redactor.redactDeep(bundle),
    diagnostics: plan.diagnostics,
    redactor: ctx.redactor,
    partial: io.signal?.aborted ?? false,
  };
}

/** Every planned case's answer, in plan order, `concurrency` targets at a time. */
async function recordAnswers(plan: RunPlan, ctx: RunContext, concurrency: number): Promise<RecordedAnswer[]> {
  const health = await healthChecks(plan.runners, ctx.warn);
  const slots: (RecordedAnswer | undefined)[] = new Array<RecordedAnswer | undefined>(plan.cases.length);
  let next = 0;
  const workers = Math.min(plan.cases.length, Math.max(1, concurrency));
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < plan.cases.length && !ctx.signal?.aborted) {
        const at = next++;
        const item = plan.cases[at]!;
        const recorded = await recordAnswer(item, health.get(item.target.runner) ?? null, ctx);
        if (!recorded) continue;
        slots[at] = recorded;
        ctx.info(
          `[${at + 1}/${plan.cases.length}] ${item.suite.path} ${item.evalCase.id}: ${recorded.error ? 'error' : 'answered'}`,
        );
      }
    }),
  );
  return slots.filter((a): a is RecordedAnswer => a !== undefined);
}

async function recordAnswer(
  item: PlannedCase,
  healthError: string | null,
  ctx: RunContext,
): Promise<RecordedAnswer | undefined> {
  const base = { suite: item.suite.path, id: item.evalCase.id, target: item.target.runner.name };
  const started = Date.now();
  const got = healthError ? { error: healthError } : await answerCase(item, ctx.exec, ctx.signal);
  if (!got) return undefined;
  if ('error' in got)
    return { ...base, answer: null, duration_ms: Date.now() - started, usage: null, error: got.error };
  const { answer } = got;
  return {
    ...base,
    answer: answer.text,
    duration_ms: answer.durationMs ?? Date.now() - started,
    usage: {
      prompt_tokens: answer.tokenUsage?.input ?? null,
      completion_tokens: answer.tokenUsage?.output ?? null,
      cost_usd: answer.costUsd,
    },
    error: null,
    ...(answer.outputMessages ? { output_messages: answer.outputMessages } : {}),
    // Code is given the object of a tool-calling reply (evaluators/context.ts); the mark says which.
    ...(answer.outputMessages && answer.value !== undefined ? { tool_output: true } : {}),
  };
}

/** The markdown rubric's gates, run here as in a single job; their verdict is the judge stage's. */
async function recordGates(plan: RunPlan, ctx: RunContext): Promise<RecordedGate[]> {
  if (!plan.rubric) return [];
  const gates: GateResult[] = await runGates(plan.rubric, {
    cwd: ctx.ws.root,
    exec: ctx.exec,
    onGate: (g, i, n) =>
      ctx.info(`gate [${i + 1}/${n}] ${g.verdict.toUpperCase()} ${g.command} (exit ${String(g.exit_code)})`),
  });
  return gates.map((g) => ({
    command: g.command,
    exit_code: g.exit_code,
    output: g.output,
    timed_out: g.timed_out,
    duration_ms: g.duration_ms,
  }));
}
