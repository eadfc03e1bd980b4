import { type CommandResult, describeExit, runCommand } from '../exec/run-command.js';
import { type EvaluatorResult } from '../results.js';
import { clamp01, verdictForScore } from '../rubric/scoring.js';
import { filesOf, renderContent } from '../suite/messages.js';
import { type EvalCase } from '../suite/types.js';
import { type CandidateAnswer } from './context.js';
import { type ExecDeps } from './deps.js';

/** The stdin payload of AgentV's code_judge contract. */
export function codeJudgeInput(
  c: EvalCase,
  answer: CandidateAnswer,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const messages = (list: EvalCase['inputMessages']) =>
    list.map((m) => ({ role: m.role, content: renderContent(m.parts) }));
  const files = filesOf(c.inputMessages);
  const expected = c.expectedMessages;
  const reference =
    [...expected].reverse().find((m) => m.role === 'assistant') ?? expected[expected.length - 1];
  return {
    question: renderContent(c.inputMessages.filter((m) => m.role === 'user').flatMap((m) => m.parts)),
    expected_outcome: c.expectedOutcome,
    reference_answer: c.referenceAnswer ?? (reference ? renderContent(reference.parts) : ''),
    candidate_answer: answer.text,
    input_messages: messages(c.inputMessages),
    expected_messages: messages(c.expectedMessages),
    output_messages: answer.outputMessages ?? [{ role: 'assistant', content: answer.text }],
    guideline_files: files.filter((f) => f.guideline).map((f) => f.absPath),
    input_files: files.filter((f) => !f.guideline).map((f) => f.absPath),
    config,
  };
}

export interface ScriptScore {
  score: number;
  hits: string[];
  misses: string[];
  reasoning: string | null;
}

/**
 * Runs a scoring script: JSON on stdin, `{score, hits?, misses?, reasoning?}` on stdout. A
 * non-zero exit, a timeout or output that is not such JSON scores 0 with a miss quoting stderr.
 */
export async function runScoringScript(
  command: string | string[],
  cwd: string,
  payload: unknown,
  deps: ExecDeps,
): Promise<ScriptScore & { ok: boolean }> {
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
  if (r.exitCode !== 0) return failed(`script ${describeExit(r, deps.commandTimeoutMs)}`, r);
  const parsed = parseScoreJson(r.stdout);
  if (!parsed) return failed('script did not print a JSON object with a numeric "score"', r);
  return { ...parsed, ok: true };
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
        };
      }
    } catch {
      /* try the next form */
    }
  }
  return null;
}

function failed(what: string, r: CommandResult): ScriptScore & { ok: boolean } {
  const stderr = (r.stderrTail || r.output).trim();
  const quoted = stderr ? `: ${stderr.length > 800 ? `…${stderr.slice(-800)}` : stderr}` : '';
  return { score: 0, hits: [], misses: [`${what}${quoted}`], reasoning: what, ok: false };
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
  return {
    name: config.name,
    type: 'code_judge',
    weight: config.weight,
    score: s.score,
    verdict: s.ok ? verdictForScore(s.score) : 'fail',
    hits: s.hits,
    misses: s.misses,
    reasoning: s.reasoning,
    gating_violations: [],
  };
}
