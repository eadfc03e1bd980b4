import { type CandidateAnswer } from './candidate-answer.js';
import { type Redactor } from '../exec/redact.js';
import { type AnswerCut } from '../core/results.js';
import { tooDeepPath } from '../core/nesting.js';

/**
 * Most characters of one answer that reach the judges and the results file: about 25k tokens,
 * far above a real answer, far below what a hostile target can print (a CLI target's stdout and
 * output file are already capped at 8 MB, in bytes, before this).
 */
export const MAX_ANSWER_CHARS = 100_000;
/** Of a cut answer, the share kept from its start; the rest comes from its end. */
const HEAD_SHARE = 0.75;

/**
 * Every answer on its way to the evaluators, whatever produced it (a target, a mock, an answers
 * file): secrets redacted first, then cut to `MAX_ANSWER_CHARS` with the cut said in the text
 * and returned, so the results can record it. Redacting first means a secret straddling the cut
 * cannot survive in fragments.
 */
export function judgedAnswer(
  raw: CandidateAnswer,
  redactor: Redactor,
): { answer: CandidateAnswer; cut: AnswerCut | null } {
  const text = redactor.redact(raw.text);
  let cut: AnswerCut | null = null;
  let kept = text;
  if (text.length > MAX_ANSWER_CHARS) {
    const head = Math.floor(MAX_ANSWER_CHARS * HEAD_SHARE);
    const tail = MAX_ANSWER_CHARS - head;
    kept = `${text.slice(0, head)}\n[… ${text.length - MAX_ANSWER_CHARS} characters cut by rubric-eval: an answer is judged on at most ${MAX_ANSWER_CHARS} …]\n${text.slice(-tail)}`;
    cut = { original_chars: text.length, kept_chars: MAX_ANSWER_CHARS };
  }
  let outputMessages = raw.outputMessages;
  if (outputMessages && !fitsJudge(outputMessages)) {
    outputMessages = null;
    cut = { original_chars: text.length, kept_chars: kept.length, ...cut, output_messages_dropped: true };
  }
  return {
    answer: {
      text: kept,
      outputMessages: outputMessages ? redactor.redactDeep(outputMessages) : null,
      durationMs: raw.durationMs,
      tokenUsage: raw.tokenUsage,
      costUsd: raw.costUsd,
      // An answer that is not a text (an OpenAI target's tool calls): its text above is its JSON.
      ...(raw.value !== undefined && outputMessages ? { value: redactor.redactDeep(raw.value) } : {}),
    },
    cut,
  };
}

/** Output messages go to the judge as JSON: only when they are shallow and small enough. */
function fitsJudge(messages: unknown[]): boolean {
  if (tooDeepPath(messages) !== null) return false;
  try {
    return JSON.stringify(messages).length <= MAX_ANSWER_CHARS;
  } catch {
    return false;
  }
}
