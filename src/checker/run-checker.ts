import { type ExecDeps } from '../evaluators/deps.js';
import { describeExit, runCommand } from '../exec/run-command.js';
import { type Judge, JudgeError } from '../judge/judge.js';
import {
  emptyUsage,
  type GateResult,
  type HistoryEntry,
  type CriterionResult,
  type CheckerResult,
} from '../core/results.js';
import { checkerWireSchema, validateCheckerAnswer } from './answer.js';
import { type MarkdownRubric } from './markdown-rubric.js';
import { checkerPrompt, type PriorIteration } from './prompt.js';
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
  history: readonly HistoryEntry[];
  onGate?: (gate: GateResult, index: number, total: number) => void;
}

/**
 * The verifier of seed 002 applied to a pull request: every gate runs, in order, even after one
 * fails; then, when the rubric has criteria or nice-to-haves, one judge call with the checker
 * contract, the gate results as context. Gates-only rubrics skip the judge; criteria-only skip gates.
 */
export async function runChecker(
  rubric: MarkdownRubric,
  opts: CheckerOptions,
): Promise<CheckerResult> {
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

  const criteria = [
    ...rubric.criteria.map((c) => ({ ...c, kind: 'must' as const })),
    ...rubric.niceToHave.map((c) => ({ ...c, kind: 'nice' as const })),
  ];
  let checks: CriterionResult[] = criteria.map((c) => ({
    id: c.id,
    kind: c.kind,
    text: c.text,
    satisfied: null,
    reasoning: null,
  }));
  let judgeVerdict: CheckerResult['judge_verdict'] = null;
  let feedback: string | null = null;
  let error: string | undefined;
  let usage = emptyUsage();

  if (criteria.length > 0) {
    if (!opts.judge) error = 'the rubric has criteria but no judge is configured';
    else {
      try {
        const subject = await opts.subject();
        const ids = criteria.map((c) => c.id);
        const prior: PriorIteration[] = opts.history.map((h) => ({
          iteration: h.iteration,
          commit: h.commit,
          verdict: h.rubric_verdict ?? (h.verdict === 'pass' ? 'accept' : 'retry'),
          counts: h.counts,
          feedback: h.feedback,
        }));
        const answer = await opts.judge.judge({
          prompt: checkerPrompt({
            gates: gates.map((g) => ({
              command: g.command,
              passed: g.verdict === 'pass',
              exitCode: g.exit_code,
              timedOut: g.timed_out,
              output: g.output,
            })),
            must: rubric.criteria,
            nice: rubric.niceToHave,
            notes: rubric.notes,
            subject,
            iteration: opts.history.length,
            prior,
          }),
          schemaName: 'checker_verdict',
          wireSchema: checkerWireSchema(ids),
          validate: (d) => validateCheckerAnswer(d, ids),
        });
        usage = answer.usage;
        const byId = new Map(answer.value.checks.map((c) => [c.id, c]));
        checks = checks.map((c) => ({
          ...c,
          satisfied: byId.get(c.id)?.satisfied ?? null,
          reasoning: byId.get(c.id)?.reasoning ?? null,
        }));
        judgeVerdict = answer.value.verdict;
        feedback = answer.value.feedback ?? null;
      } catch (err) {
        if (err instanceof JudgeError) usage = err.usage;
        error = `checker: ${(err as Error).message}`;
      }
    }
  }
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
