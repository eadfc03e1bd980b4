import { type CaseContext } from '../judge/prompts.js';
import { renderContent, renderQuestion, renderReferenceAnswer } from '../suite/messages.js';
import { type EvalCase, type Message } from '../suite/types.js';

/** The candidate's answer as a target produced it. */
export interface CandidateAnswer {
  text: string;
  /** Full output messages when the target gave them (CLI targets may). */
  outputMessages: unknown[] | null;
}

function messagesJson(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, content: renderContent(m.parts) })));
}

/** Everything a prompt or code judge may need about one case and its answer. */
export function caseContext(c: EvalCase, answer: CandidateAnswer): CaseContext {
  return {
    question: renderQuestion(c.inputMessages),
    expectedOutcome: c.expectedOutcome,
    referenceAnswer: renderReferenceAnswer(c.expectedMessages),
    candidateAnswer: answer.text,
    inputMessagesJson: messagesJson(c.inputMessages),
    expectedMessagesJson: messagesJson(c.expectedMessages),
    outputMessagesJson: JSON.stringify(
      answer.outputMessages ?? [{ role: 'assistant', content: answer.text }],
    ),
  };
}
