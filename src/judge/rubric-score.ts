import { z } from 'zod';
import { fence } from './fence.js';
import { suiteMessages } from './model-graded-prompts.js';
import { type CaseContext, type JudgePrompt, systemMessage } from './prompts.js';
import { optionalText, type Validated } from './schemas.js';

/**
 * promptfoo's and AgentV 5's `llm-rubric` with a text value: the judge grades the answer against
 * the rubric and answers promptfoo's grading result, `{reason, pass, score}` with a score in 0..1.
 * The assertion's score is that score (not a ticked checklist item).
 */

export const rubricScoreWireSchema = z.object({
  reason: z.string(),
  pass: z.boolean(),
  score: z.number().min(0).max(1),
});

const RubricScoreAnswer = z.object({
  pass: z.boolean({ error: 'pass must be true or false' }),
  // Out of scale is invalid, never clamped: 7 on a 0..1 scale is a judge that misread it.
  score: z
    .number({ error: 'score must be a number between 0 and 1' })
    .min(0, { error: 'score must be between 0 and 1 (not rescaled)' })
    .max(1, { error: 'score must be between 0 and 1 (not rescaled)' }),
  reason: optionalText,
});

export type RubricScoreAnswer = z.infer<typeof RubricScoreAnswer>;

export function validateRubricScore(data: unknown): Validated<RubricScoreAnswer> {
  const r = RubricScoreAnswer.safeParse(data);
  if (r.success) return { ok: true, value: r.data, warnings: [] };
  const error = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`)
    .join('; ');
  return { ok: false, error };
}

const RUBRIC_SHAPE =
  '{"reason": "<1-2 sentences>", "pass": true|false, "score": <number 0.0-1.0 (how fully the rubric is met)>}';

/**
 * The case as the judge sees it (the answer fenced), then the rubric, which is the suite's own text.
 * With the suite's own grader prompt (promptfoo `rubricPrompt`), that prompt in place of ours,
 * given promptfoo's values (the test's vars, `rubric`, `output`, the answer fenced); our system
 * message still holds the fence rule and the answer shape.
 */
export function rubricScorePrompt(
  ctx: CaseContext,
  rubric: string,
  suite?: { text: string; vars: Record<string, unknown> },
): JudgePrompt {
  if (suite) {
    const values = { plain: { rubric }, untrusted: { output: ctx.candidateAnswer } };
    return {
      messages: [
        systemMessage(`Answer with one JSON object of this shape: ${RUBRIC_SHAPE}`),
        ...suiteMessages(suite.text, values, suite.vars),
      ],
      shapeHint: RUBRIC_SHAPE,
    };
  }
  const parts: string[] = [];
  if (ctx.question.trim()) parts.push(`[[ ## question ## ]]\n${ctx.question.trim()}`);
  if (ctx.referenceAnswer.trim()) parts.push(`[[ ## reference_answer ## ]]\n${ctx.referenceAnswer.trim()}`);
  parts.push(`[[ ## candidate_answer ## ]]\n${fence('candidate_answer', ctx.candidateAnswer)}`);
  parts.push(`[[ ## rubric ## ]]\n${rubric.trim()}`);
  return {
    messages: [
      systemMessage(
        'Grade the candidate answer against the rubric. Answer `pass` (does the answer meet the rubric) and `score` from 0.0 to 1.0 (how fully it meets it; 1.0 fully, 0.0 not at all), with a short reason.',
      ),
      { role: 'user', content: parts.join('\n\n') },
    ],
    shapeHint: RUBRIC_SHAPE,
  };
}
