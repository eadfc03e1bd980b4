import { type CaseContext } from '../judge/prompts.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { messageAsWritten, renderQuestion, renderReferenceAnswer } from '../suite/messages.js';
import { type EvalCase, type Message } from '../suite/types.js';
import { type TargetAnswer } from '../targets/providers.js';
import { promptfooOutput } from '../judge/openai-message.js';

/** What the evaluators see of a target's answer. */
export function candidateFromTarget(a: TargetAnswer): CandidateAnswer {
  // An OpenAI target's tool calls: code and the tool-call assertions are given them, as in promptfoo;
  // any other target's messages are its trace, and code is given its text.
  const value = a.toolOutput ? promptfooOutput(a.text, a.outputMessages) : a.text;
  return {
    ...(typeof value !== 'string' ? { value } : {}),
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
