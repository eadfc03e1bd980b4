import { type ExecDeps } from '../exec/deps.js';
import { describeExit, runCommand } from '../exec/run-command.js';
import { type Judge, JudgeError } from '../judge/judge.js';
import {
  type CheckerResult,
  type CriterionResult,
  emptyUsage,
  type GateResult,
  type HistoryEntry,
} from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { checkerWireSchema, validateCheckerAnswer } from './answer.js';
import { type MarkdownRubric } from './markdown-rubric.js';
import { checkerPrompt, type GateContext, type PriorIteration } from './prompt.js';
import { type Subject } from './subject.js';
import { checkerCounts, checkerVerdict } from './verdict.js';

export interface CheckerOptions {
  cwd: string;
  exec: ExecDeps;
  /** Null when the rubric has no criteria (gates only): no judge is needed. */
  judge: Judge | null;
  /** Where the judged change comes from: the PR via the API, a git diff, the last commit. */
  subject: () => Promise<Subject>;
  /** Earlier runs on this pull request, oldest first. */
  history: readonly HistoryEntry[] | Promise<readonly HistoryEntry[]>;
  onGate?: (gate: GateResult, index: number, total: number) => void;
  /** Why there is no judge when the rubric needs one (a fork's run), told instead of a configuration error. */
  noJudge?: string;
  /**
   * The judge stage: the gates' results as the pull request's run reported them, in place of
   * running them (README "The trusted stage"). Nothing is run when this is given.
   */
  reportedGates?: (rubric: MarkdownRubric) => GateResult[];
}

/**
 * The checker applied to a change: every gate runs, in order, even after one fails; then, when
 * the rubric has criteria or nice-to-haves, one judge call with the checker's prompt, the gate
 * results as context. Gates-only rubrics skip the judge; criteria-only skip gates.
 */
export async function runChecker(rubric: MarkdownRubric, opts: CheckerOptions): Promise<CheckerResult> {
  const gates = opts.reportedGates ? opts.reportedGates(rubric) : await runGates(rubric, opts);
  const criteria = [
    ...rubric.criteria.map((c) => ({ ...c, kind: 'must' as const })),
    ...rubric.niceToHave.map((c) => ({ ...c, kind: 'nice' as const })),
  ];
  const unjudged: CriterionResult[] = criteria.map((c) => ({
    id: c.id,
    kind: c.kind,
    text: c.text,
    satisfied: null,
    reasoning: null,
  }));
  const judged: Judged =
    criteria.length === 0
      ? { checks: unjudged, judgeVerdict: null, feedback: null, usage: emptyUsage() }
      : await judgeCriteria(rubric, gates, unjudged, opts);
  const { checks, judgeVerdict, feedback, error, usage } = judged;
  const { verdict, score } = checkerVerdict({ gates, checks, judgeVerdict, judgeError: error !== undefined });
  return {
    path: rubric.path,
    title: rubric.title,
    hash: rubric.hash,
    verdict,
    score,
    gates,
    checks,
    judge_verdict: judgeVerdict,
    feedback,
    counts: checkerCounts(gates, checks),
    ...(error ? { error } : {}),
    usage,
  };
}

/** Every gate, in order, each to its end even after one failed; a cancelled run stops starting them. */
export async function runGates(
  rubric: MarkdownRubric,
  opts: Pick<CheckerOptions, 'cwd' | 'exec' | 'onGate'>,
): Promise<GateResult[]> {
  const gates: GateResult[] = [];
  for (const [i, gate] of rubric.gates.entries()) {
    if (opts.exec.signal?.aborted) break;
    const r = await runCommand({
      command: gate.command,
      cwd: opts.cwd,
      timeoutMs: opts.exec.commandTimeoutMs,
      env: opts.exec.childEnv,
      redactor: opts.exec.redactor,
      signal: opts.exec.signal,
    });
    const result: GateResult = {
      command: gate.command,
      verdict: r.exitCode === 0 && !r.timedOut ? 'pass' : 'fail',
      exit_code: r.exitCode,
      timed_out: r.timedOut,
      duration_ms: r.durationMs,
      output:
        r.exitCode === 0
          ? r.output
          : `${r.output}${r.output.endsWith('\n') || !r.output ? '' : '\n'}[${describeExit(r, opts.exec.commandTimeoutMs)}]`,
      line: gate.line,
    };
    gates.push(result);
    opts.onGate?.(result, i, rubric.gates.length);
  }
  return gates;
}

/** What the judge said of the criteria; `error` when it could not say (the criteria stay unjudged). */
interface Judged {
  checks: CriterionResult[];
  judgeVerdict: CheckerResult['judge_verdict'];
  feedback: string | null;
  error?: string;
  usage: Usage;
}

/** One judge call for all criteria, with the gates' results and the earlier iterations as context. */
async function judgeCriteria(
  rubric: MarkdownRubric,
  gates: readonly GateResult[],
  unjudged: CriterionResult[],
  opts: CheckerOptions,
): Promise<Judged> {
  const none = { checks: unjudged, judgeVerdict: null, feedback: null };
  if (!opts.judge) {
    return {
      ...none,
      error: opts.noJudge ?? 'the rubric has criteria but no judge is configured',
      usage: emptyUsage(),
    };
  }
  try {
    const [subject, history] = await Promise.all([opts.subject(), opts.history]);
    const ids = unjudged.map((c) => c.id);
    const answer = await opts.judge.judge({
      prompt: checkerPrompt({
        gates: gates.map(gateContext),
        must: rubric.criteria,
        nice: rubric.niceToHave,
        notes: rubric.notes,
        subject,
        iteration: history.length,
        prior: history.map(priorIteration),
      }),
      schemaName: 'checker_verdict',
      wireSchema: checkerWireSchema(ids),
      validate: (d) => validateCheckerAnswer(d, ids),
    });
    const byId = new Map(answer.value.checks.map((c) => [c.id, c]));
    return {
      checks: unjudged.map((c) => ({
        ...c,
        satisfied: byId.get(c.id)?.satisfied ?? null,
        reasoning: byId.get(c.id)?.reasoning ?? null,
      })),
      judgeVerdict: answer.value.verdict,
      feedback: answer.value.feedback ?? null,
      usage: answer.usage,
    };
  } catch (err) {
    return {
      ...none,
      error: `checker: ${(err as Error).message}`,
      usage: err instanceof JudgeError ? err.usage : emptyUsage(),
    };
  }
}

const gateContext = (g: GateResult): GateContext => ({
  command: g.command,
  passed: g.verdict === 'pass',
  exitCode: g.exit_code,
  timedOut: g.timed_out,
  output: g.output,
});

/** An earlier run on the pull request as the checker reads it: its own verdict, else the run's. */
const priorIteration = (h: HistoryEntry): PriorIteration => ({
  iteration: h.iteration,
  commit: h.commit,
  verdict: h.rubric_verdict ?? (h.verdict === 'pass' ? 'accept' : 'retry'),
  counts: h.counts,
  feedback: h.feedback,
});
