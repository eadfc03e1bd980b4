import { setMaxListeners } from 'node:events';
import { type Config } from '../config/config.js';
import { excerpt } from '../core/diagnostics.js';
import { addUsage, type GateResult, type TrustedInfo } from '../core/results.js';
import { type MarkdownRubric } from '../checker/markdown-rubric.js';
import { type TargetAnswer, TargetError, type TargetRunner } from '../targets/providers.js';
import { aggregateResults } from './aggregate.js';
import { stampClusters } from './clusters.js';
import { calibrationStep } from './calibrate.js';
import { type LabelsReader, workingTreeLabels } from '../calibration/stage.js';
import { budgetProblems, withSpend } from './budget.js';
import { applyPassRates } from './pass-rate.js';
import { compareStage } from './compare.js';
import { createRunContext } from './context.js';
import { executePlan } from './execute.js';
import { finishRun, type RunOutcome } from './finish.js';
import { judgeInfo } from './judge-endpoint.js';
import { loadInputs } from './load.js';
import { type PlannedCase, planProblems, planRun, type RunPlan } from './plan.js';
import { answersItself, type HeadCase, type HeadFiles, loadHeadCases } from './head-cases.js';
import { caseKey, type RecordedAnswer, type RecordedGate } from './record-bundle.js';
import { type RecordedInput, type RunIO } from './run-io.js';

/**
 * `stage: judge`, wired: load (this checkout: the base branch) → plan → the bundle's answers in
 * place of the targets → execute (the judging half) → aggregate → compare → results. The
 * bundle is data: it chooses no suite, target or judge, runs nothing, and a case it does not
 * answer is an error, never a pass.
 */
export async function judgeRecorded(config: Config, recorded: RecordedInput, io: RunIO): Promise<RunOutcome> {
  const started = Date.now();
  const hooks = io.hooks ?? {};
  if (io.signal) setMaxListeners(0, io.signal);
  const phase = hooks.phase ?? (<T>(_n: string, fn: () => Promise<T>) => fn());
  // The answers are the bundle's: an answers file in the checkout is not consulted.
  const base: Config = { ...config, answersFile: null };
  const ctx = createRunContext(base, io);
  // Targets are never called here: an unset `${{ VAR }}` in the targets file only warns.
  const plan = await phase('Load and validate (base branch)', async () =>
    planRun(await loadInputs(base, ctx.ws, ctx), base, ctx, { unsetEnv: 'warning' }),
  );
  const { errors, warnings, warningLines } = planProblems(plan);
  // The cap holds here as in any run: the judge's price must be known before anything is spent.
  errors.push(...budgetProblems(config.budgetUsd, plan.defaultEndpoint, ctx.judges.prices));
  if (errors.length === 0) for (const w of warningLines) ctx.warn(w);
  // The labels that gate are this checkout's, the base branch's; the head's are data, shown only.
  const calibration = await calibrationStep(
    config,
    plan,
    ctx,
    errors,
    baseLabelsWithHead(workingTreeLabels(ctx.ws), recorded, ctx.warn),
  );
  const { bundle } = recorded;
  for (const e of bundle.errors ?? []) errors.push(`the pull request's run could not record: ${excerpt(e)}`);
  const answers = new Map(bundle.answers.map((a) => [caseKey(a.suite, a.id), a]));
  const head =
    errors.length > 0 ? new Map<string, HeadCase>() : await headCases(plan, recorded.headFiles, ctx.signal);
  const executed =
    errors.length > 0
      ? { suites: [], rubric: null, partial: ctx.signal?.aborted ?? false }
      : await phase('Judge the recorded answers', () =>
          calibration.around(
            executePlan(withRecordedAnswers(plan, answers, head), {
              ...ctx,
              cwd: ctx.ws.root,
              concurrency: config.concurrency,
              subject: io.subject ?? (() => Promise.reject(new TargetError('no pull request to judge'))),
              history: io.history ?? [],
              progress: hooks.progress,
              reportedGates: (rubric) => reportedGates(rubric, bundle.gates),
            }),
          ),
        );
  stampClusters(executed.suites, plan.suites);
  for (const s of executed.suites)
    for (const c of s.cases) c.answered_by = head.has(caseKey(s.path, c.id)) ? 'judge' : 'record';
  // The same gates as a single-job run: pass rates (the base's suites, so their keys are the
  // base's too) and the spend cap.
  const results = withSpend(
    applyPassRates(
      aggregateResults({
        ...executed,
        errors,
        warnings,
        judge: judgeInfo(plan.defaultEndpoint),
        history: await (io.history ?? []),
        commit: io.commit ?? null,
        started,
      }),
      config.minPassRate,
    ),
    ctx.spend,
  );
  if ('calibration' in executed && executed.calibration) {
    results.calibration = executed.calibration;
    addUsage(results.usage, executed.calibration.usage);
  }
  results.trusted = trustedInfo(plan, recorded);
  const compared = await compareStage(results, config, {
    ws: ctx.ws,
    finder: io.baseline,
    warn: ctx.warn,
    signal: io.signal,
  });
  // This job's checkout is the base branch: a baseline file in it is the base's, not the PR's.
  if (compared.baseline?.in_checkout) delete compared.baseline.in_checkout;
  await ctx.judges.settle();
  return finishRun(compared, {
    diagnostics: plan.diagnostics,
    redactor: ctx.redactor,
    stats: ctx.judges.stats(),
    executed: errors.length === 0,
  });
}

/** The most label lines a pull request may add that the judge stage measures (with the workflow's key). */
const MAX_PROPOSED_LABELS = 100;

/**
 * The labels of this checkout (the base branch's) gate. The pull request head's file is what the
 * PR proposes, read through the API as data and shown "after merge", never gating; it is read
 * only when the PR changes it, and measured only when it adds at most MAX_PROPOSED_LABELS lines
 * the base does not have: a fork must not spend the base's judge key on labels of its own.
 */
function baseLabelsWithHead(
  base: LabelsReader,
  recorded: Pick<RecordedInput, 'headFiles' | 'changes'>,
  warn: (m: string) => void,
): LabelsReader {
  return async (file) => {
    const gating = { ...(await base(file)).gating, from: "the base branch's checkout" };
    const { headFiles, changes } = recorded;
    if (!headFiles || !changes?.(file)) return { gating, proposed: null };
    const from = 'pull request head (GitHub API)';
    try {
      const text = (await headFiles([file])).get(file) ?? null;
      const added = text === null ? 0 : newLines(text, gating.text ?? '');
      if (added > MAX_PROPOSED_LABELS)
        return {
          gating,
          proposed: {
            text,
            from,
            refused: `the pull request adds ${added} label lines; the judge stage measures at most ${MAX_PROPOSED_LABELS} of a pull request's new labels (they are judged with the workflow's key): κ after merge not measured`,
          },
        };
      return { gating, proposed: { text, from } };
    } catch (err) {
      warn(`calibration: the pull request head's ${file} could not be read: ${(err as Error).message}`);
      return { gating, proposed: null };
    }
  };
}

/** How many non-blank lines of `text` are not lines of `base`. */
function newLines(text: string, base: string): number {
  const known = new Set(base.split('\n').map((l) => l.trim()));
  return text.split('\n').filter((l) => l.trim() !== '' && !known.has(l.trim())).length;
}

/** The head's version of every case a model-only target answers, when the head can be read. */
async function headCases(
  plan: RunPlan,
  read: HeadFiles | undefined,
  signal: AbortSignal | undefined,
): Promise<Map<string, HeadCase>> {
  if (!read) return new Map();
  const own = plan.cases.filter((c) => answersItself(c.target.runner));
  const paths = [...new Set(own.map((c) => c.suite.path))];
  return loadHeadCases(
    paths,
    read,
    own.map((c) => ({ suite: c.suite.path, id: c.evalCase.id })),
    signal,
  );
}

/**
 * The plan with every case answered from the bundle, except those a model-only target answers
 * here from the head's case; the base's other targets are never called.
 */
function withRecordedAnswers(
  plan: RunPlan,
  answers: ReadonlyMap<string, RecordedAnswer>,
  head: ReadonlyMap<string, HeadCase>,
): RunPlan {
  const cases: PlannedCase[] = plan.cases.map((item) => {
    const key = caseKey(item.suite.path, item.evalCase.id);
    const own = head.get(key);
    return {
      ...item,
      target: {
        runner: own
          ? headRunner(item.target.runner, own)
          : recordedRunner(item.target.runner.name, answers.get(key)),
        definition: item.target.definition,
      },
    };
  });
  return { ...plan, cases, runners: [] };
}

/** A model-only target answering the head's version of the case with the workflow's credentials. */
function headRunner(runner: TargetRunner, own: HeadCase): TargetRunner {
  return {
    name: runner.name,
    provider: runner.provider,
    healthcheck: () => Promise.resolve(),
    answer: (_c, attempt) =>
      'error' in own ? Promise.reject(new TargetError(own.error)) : runner.answer(own.evalCase, attempt),
  };
}

/** A target that answers one case with what the pull request's run recorded for it. */
function recordedRunner(name: string, recorded: RecordedAnswer | undefined): TargetRunner {
  return {
    name,
    provider: 'recorded',
    healthcheck: () => Promise.resolve(),
    answer: (): Promise<TargetAnswer> => {
      if (!recorded)
        return Promise.reject(new TargetError("no answer recorded by the pull request's run for this case"));
      if (recorded.error !== null || recorded.answer === null)
        return Promise.reject(
          new TargetError(`the pull request's run: ${recorded.error ?? 'the target gave no answer'}`),
        );
      return Promise.resolve({
        text: recorded.answer,
        outputMessages: recorded.output_messages ?? null,
        ...(recorded.tool_output === true ? { toolOutput: true as const } : {}),
        // The bundle's usage is the pull request's word: shown nowhere and never charged to
        // `budget-usd`, or a bundle could skip every case by claiming a fortune was spent.
        promptTokens: null,
        completionTokens: null,
        costUsd: null,
        durationMs: recorded.duration_ms,
      });
    },
  };
}

/**
 * The base rubric's gates, each with the result the pull request's run reported for the same
 * command; a gate it did not report fails. Reported gates the base does not have count for nothing.
 */
function reportedGates(rubric: MarkdownRubric, reported: readonly RecordedGate[]): GateResult[] {
  const byCommand = new Map(reported.map((g) => [g.command, g]));
  return rubric.gates.map((gate) => {
    const r = byCommand.get(gate.command);
    if (!r)
      return {
        command: gate.command,
        verdict: 'fail',
        exit_code: null,
        timed_out: false,
        duration_ms: 0,
        output: "[not reported by the pull request's run]",
        line: gate.line,
      };
    return {
      command: gate.command,
      verdict: r.exit_code === 0 && !r.timed_out ? 'pass' : 'fail',
      exit_code: r.exit_code,
      timed_out: r.timed_out ?? false,
      duration_ms: r.duration_ms ?? 0,
      output: r.output,
      line: gate.line,
    };
  });
}

function trustedInfo(plan: RunPlan, recorded: RecordedInput): TrustedInfo {
  const { bundle } = recorded;
  const planned = new Set(plan.suites.flatMap((s) => s.cases.map((c) => caseKey(s.path, c.id))));
  const answered = new Set(bundle.answers.map((a) => caseKey(a.suite, a.id)));
  const gates = new Set(plan.rubric?.gates.map((g) => g.command) ?? []);
  return {
    stage: 'judge',
    record_run: recorded.run,
    pr_number: bundle.pr_number,
    head_sha: bundle.head_sha,
    new_in_pr: [...answered].filter((k) => !planned.has(k)),
    unanswered: [...planned].filter((k) => !answered.has(k)),
    extra_gates: bundle.gates.map((g) => g.command).filter((c) => !gates.has(c)),
    ...(recorded.changedFiles ? { changed_files: recorded.changedFiles } : {}),
    ...(recorded.shards && recorded.shards > 1 ? { record_shards: recorded.shards } : {}),
  };
}
