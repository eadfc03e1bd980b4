import { z } from 'zod';
import { idEnum, memoByIds, optionalText, type Validated, validateChecks } from '../judge/schemas.js';

/**
 * The checker's answer: a verdict per criterion id, feedback for the next iteration, and
 * accept/retry/terminate. The wire form is sent as the strict response format; the validation
 * applies to every answer whatever the endpoint enforced.
 */
function buildCheckerWireSchema(ids: readonly string[]) {
  return z.object({
    checks: z.array(z.object({ id: idEnum(ids), reasoning: z.string(), satisfied: z.boolean() })),
    feedback: z.string(),
    verdict: z.enum(['accept', 'retry', 'terminate']),
  });
}

export const checkerWireSchema = memoByIds(buildCheckerWireSchema);

const CheckerAnswer = z.object({
  checks: z.array(z.object({ id: z.coerce.string(), satisfied: z.boolean(), reasoning: optionalText })),
  verdict: z.preprocess(
    (v) => (typeof v === 'string' ? v.toLowerCase() : v),
    z.enum(['accept', 'retry', 'terminate']),
  ),
  feedback: optionalText,
});

export type CheckerAnswer = z.infer<typeof CheckerAnswer>;

export function validateCheckerAnswer(data: unknown, ids: readonly string[]): Validated<CheckerAnswer> {
  return validateChecks(CheckerAnswer, data, ids);
}
