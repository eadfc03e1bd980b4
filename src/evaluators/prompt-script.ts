import { describeExit, runCommand } from '../exec/run-command.js';
import { fence } from '../judge/fence.js';
import { type EvalCase, type PromptScript } from '../suite/types.js';
import { codeJudgeInput } from './code-judge.js';
import { messageAsWritten } from '../suite/messages.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { type ExecDeps } from '../exec/deps.js';
import { traceOf } from './trace.js';
import { RubricEvalError } from '../core/errors.js';

/** Prompts longer than this are refused: a script gone wrong must not become a huge judge call. */
const MAX_PROMPT_CHARS = 200_000;

/**
 * Runs an AgentV prompt script (`prompt: {script, config}`): the case goes to its stdin as
 * JSON (snake_case, the code judge payload plus `trace_summary`), its stdout is the judge prompt.
 * Through the one command runner, so timeouts, the process bound and redaction apply. The
 * candidate's text, wherever the script copied it verbatim, is put back inside a fence: the
 * answer reaches the judge only through `fence()`. Throws with the reason when it cannot run.
 */
export async function renderPromptScript(
  script: PromptScript,
  c: EvalCase,
  answer: CandidateAnswer,
  deps: ExecDeps,
): Promise<string> {
  const trace = traceOf(answer);
  const payload = {
    ...codeJudgeInput(c, answer, script.config ?? {}),
    // AgentV 5's prompt-template names: the answer as written (never fenced: the script may
    // measure or parse it); the fence goes round it in what the script prints (below).
    output: answer.text,
    answer: answer.text,
    criteria: c.expectedOutcome,
    input: c.inputMessages.map(messageAsWritten),
    expected_output: c.expectedMessages.map(messageAsWritten),
    messages: answer.outputMessages ?? [{ role: 'assistant', content: answer.text }],
    config: script.config,
    trace_summary: trace && {
      event_count: trace.toolCalls.length,
      tool_names: Object.keys(trace.toolCallsByName).sort(),
      tool_calls_by_name: trace.toolCallsByName,
      llm_call_count: trace.llmCallCount,
      token_usage: trace.tokenUsage,
      cost_usd: trace.costUsd,
      duration_ms: trace.durationMs,
    },
  };
  const r = await deps.processLimiter.run(
    () =>
      runCommand({
        command: script.command,
        cwd: script.cwd,
        timeoutMs: deps.commandTimeoutMs,
        env: deps.childEnv,
        stdin: JSON.stringify(payload),
        redactor: deps.redactor,
        signal: deps.signal,
        stdoutLimit: MAX_PROMPT_CHARS * 4,
      }),
    deps.signal,
  );
  const name = script.command.join(' ');
  if (r.exitCode !== 0) {
    const said = (r.stderrTail || r.output).trim();
    throw new RubricEvalError(
      `prompt script \`${name}\` ${describeExit(r, deps.commandTimeoutMs)}${said ? `: ${said.slice(-800)}` : ''}`,
    );
  }
  const prompt = r.stdout.trim();
  if (!prompt) throw new RubricEvalError(`prompt script \`${name}\` printed an empty prompt`);
  if (r.stdoutOverflowed || prompt.length > MAX_PROMPT_CHARS)
    throw new RubricEvalError(`prompt script \`${name}\` printed more than ${MAX_PROMPT_CHARS} characters`);
  return fenceVerbatim(prompt, answer.text);
}

/** Every verbatim copy of the (trimmed, non-empty) candidate text in `prompt`, fenced. */
export function fenceVerbatim(prompt: string, candidate: string): string {
  const needle = candidate.trim();
  if (!needle) return prompt;
  return prompt.split(needle).join(fence('candidate_answer', needle));
}
