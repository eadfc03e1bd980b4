import { type CommandResult, describeExit, runCommand } from '../exec/run-command.js';
import { type EvaluatorResult } from '../core/results.js';
import { clamp01, verdictForScore } from '../rubric/scoring.js';
import { filesOf, messageAsWritten, renderReferenceAnswer, renderUserQuestion } from '../suite/messages.js';
import { type EvalCase } from '../suite/types.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { type ExecDeps } from '../exec/deps.js';
import { isRecord } from '../core/is-record.js';

/** The stdin payload of AgentV's code_judge contract. */
export function codeJudgeInput(
  c: EvalCase,
  answer: CandidateAnswer,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const files = filesOf(c.inputMessages);
  return {
    question: renderUserQuestion(c.inputMessages),
    expected_outcome: c.expectedOutcome,
    reference_answer: c.referenceAnswer ?? renderReferenceAnswer(c.expectedMessages),
    candidate_answer: answer.text,
    input_messages: c.inputMessages.map(messageAsWritten),
    expected_messages: c.expectedMessages.map(messageAsWritten),
    output_messages: answer.outputMessages ?? [{ role: 'assistant', content: answer.text }],
    guideline_files: files.filter((f) => f.guideline).map((f) => f.absPath),
    input_files: files.filter((f) => !f.guideline).map((f) => f.absPath),
    // AgentV sends `config: null` when the evaluator has no keys of its own.
    config: Object.keys(config).length > 0 ? config : null,
  };
}

interface ScriptScore {
  score: number;
  hits: string[];
  misses: string[];
  reasoning: string | null;
  /** The script's own `details` object, kept in the results file as AgentV keeps it. */
  details?: Record<string, unknown>;
}

/** A script that ran and printed a result, or why it did not: the latter is an `error`, never a score. */
export type ScriptOutcome = ({ ok: true } & ScriptScore) | { ok: false; error: string };

/** How a script is named in messages: its argv as written. */
function describeScript(command: string | string[]): string {
  return Array.isArray(command) ? command.join(' ') : command;
}

/**
 * Runs a scoring script: JSON on stdin, `{score, hits?, misses?, reasoning?}` on stdout. A script
 * that cannot start, times out, or ends without printing such a result has not scored anything,
 * so the outcome says why instead of a score. A non-zero exit that still printed a result counts
 * the result (AgentV's scripts may signal a miss with exit 1).
 */
export async function runScoringScript(
  command: string | string[],
  cwd: string,
  payload: unknown,
  deps: ExecDeps,
): Promise<ScriptOutcome> {
  const r = await deps.processLimiter.run(
    () =>
      runCommand({
        command,
        cwd,
        timeoutMs: deps.commandTimeoutMs,
        env: deps.childEnv,
        stdin: JSON.stringify(payload),
        redactor: deps.redactor,
        signal: deps.signal,
        stdoutLimit: 1024 * 1024,
      }),
    deps.signal,
  );
  const name = `script '${describeScript(command)}'`;
  if (r.spawnError || r.timedOut || r.cancelled || r.signal)
    return failed(`${name} ${describeExit(r, deps.commandTimeoutMs)}`, r);
  const parsed = r.stdoutOverflowed ? null : parseScoreJson(r.stdout);
  if (parsed) return { ...parsed, ok: true };
  if (r.exitCode !== 0)
    return failed(`${name} ${describeExit(r, deps.commandTimeoutMs)} without a result`, r);
  return failed(`${name} did not print a JSON object with a numeric "score"`, r);
}

function parseScoreJson(stdout: string): ScriptScore | null {
  const text = stdout.trim();
  const candidates = [text, text.slice(text.lastIndexOf('\n{') + 1)];
  for (const c of candidates) {
    try {
      const d = JSON.parse(c) as Record<string, unknown>;
      if (d && typeof d === 'object' && typeof d.score === 'number' && Number.isFinite(d.score)) {
        const strings = (v: unknown) =>
          Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
        return {
          score: clamp01(d.score),
          hits: strings(d.hits),
          misses: strings(d.misses),
          reasoning: typeof d.reasoning === 'string' ? d.reasoning : null,
          ...(isRecord(d.details) ? { details: d.details } : {}),
        };
      }
    } catch {
      /* try the next form */
    }
  }
  return null;
}

/** The reason with the tail of what the script said (stderr first: where a crash explains itself). */
function failed(what: string, r: CommandResult): { ok: false; error: string } {
  const said = (r.stderrTail || r.output).trim();
  const tail = said.length > 800 ? `…${said.slice(-800)}` : said;
  return { ok: false, error: tail ? `${what}: ${tail}` : what };
}

export async function runCodeJudge(
  config: {
    name: string;
    weight: number;
    command: string | string[];
    cwd: string;
    config: Record<string, unknown>;
  },
  c: EvalCase,
  answer: CandidateAnswer,
  deps: ExecDeps,
): Promise<EvaluatorResult> {
  const s = await runScoringScript(
    config.command,
    config.cwd,
    codeJudgeInput(c, answer, config.config),
    deps,
  );
  const base = {
    name: config.name,
    type: 'code_judge' as const,
    weight: config.weight,
    gating_violations: [],
  };
  if (!s.ok)
    return { ...base, score: 0, verdict: 'error', error: s.error, hits: [], misses: [], reasoning: null };
  return {
    ...base,
    score: s.score,
    verdict: verdictForScore(s.score),
    hits: s.hits,
    misses: s.misses,
    reasoning: s.reasoning,
    ...(s.details ? { details: s.details } : {}),
  };
}
