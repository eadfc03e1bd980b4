import { type CaseContext } from '../judge/prompts.js';
import { messageAsWritten, renderQuestion, renderReferenceAnswer } from '../suite/messages.js';
import { type EvalCase, type Message } from '../suite/types.js';
import { type TargetAnswer } from '../targets/providers.js';
import { type TokenUsage } from './trace.js';

/** The candidate's answer as a target produced it. */
export interface CandidateAnswer {
  text: string;
  /** Full output messages when the target gave them (CLI targets may). */
  outputMessages: unknown[] | null;
  /** The target call's metrics, when known: `duration_ms` as reported, else as measured. */
  durationMs: number | null;
  tokenUsage: TokenUsage | null;
  costUsd: number | null;
  /** What a promptfoo transform made of the text, when not text (code is given this as `output`). */
  value?: unknown;
}

/** What the evaluators see of a target's answer. */
export function candidateFromTarget(a: TargetAnswer): CandidateAnswer {
  return {
    text: a.text,
    outputMessages: a.outputMessages,
    durationMs: a.durationMs,
    tokenUsage:
      a.promptTokens !== null || a.completionTokens !== null
        ? {
            input: a.promptTokens ?? 0,
            output: a.completionTokens ?? 0,
            ...(a.cachedTokens != null ? { cached: a.cachedTokens } : {}),
          }
        : null,
    costUsd: a.costUsd,
  };
}

function messagesJson(messages: readonly Message[]): string {
  return JSON.stringify(messages.map(messageAsWritten));
}

/**
 * Everything a prompt or code judge may need about one case and its answer. The JSON texts are
 * written when a prompt template first asks for them: a checklist or score-range prompt never
 * does, and writing them for every case (the answer among them) was work thrown away.
 */
export function caseContext(c: EvalCase, answer: CandidateAnswer): CaseContext {
  let input: string | undefined;
  let expected: string | undefined;
  let output: string | undefined;
  return {
    question: renderQuestion(c.inputMessages),
    expectedOutcome: c.expectedOutcome,
    referenceAnswer: c.referenceAnswer ?? renderReferenceAnswer(c.expectedMessages),
    candidateAnswer: answer.text,
    get inputMessagesJson() {
      return (input ??= messagesJson(c.inputMessages));
    },
    get expectedMessagesJson() {
      return (expected ??= messagesJson(c.expectedMessages));
    },
    get outputMessagesJson() {
      return (output ??= JSON.stringify(
        answer.outputMessages ?? [{ role: 'assistant', content: answer.text }],
      ));
    },
  };
}
