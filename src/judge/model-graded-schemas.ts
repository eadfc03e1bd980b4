import { z } from 'zod';
import { type Validated } from './schemas.js';

/**
 * Answer schemas of promptfoo's model-graded assertions, as this project asks them: every answer
 * is a JSON object the judge is held to (strict json_schema where the endpoint enforces it, and
 * validated here whatever it enforced). A suite's `rubricPrompt` changes the prompt, never these.
 */

const reason = z.string();

export const MODEL_GRADED_SCHEMAS = {
  /** factuality: promptfoo's five categories of the answer against the reference. */
  factuality: z.object({ reason, category: z.enum(['A', 'B', 'C', 'D', 'E']) }),
  /** model-graded-closedqa: does the answer meet the criterion (promptfoo's Y / N). */
  closedqa: z.object({ reason, meets_criterion: z.boolean() }),
  /** g-eval, first step: the evaluation steps for the criteria. */
  geval_steps: z.object({ steps: z.array(z.string()) }),
  /** g-eval, second step: a score out of 10. */
  geval_score: z.object({ reason, score: z.number().int().min(0).max(10) }),
  /** answer-relevance: questions the answer would answer. */
  questions: z.object({ questions: z.array(z.string()) }),
  /** context-faithfulness, first step: the answer's statements. */
  statements: z.object({ statements: z.array(z.string()) }),
  /** context-faithfulness, second step: each statement supported by the context or not, in order. */
  verdicts: z.object({ verdicts: z.array(z.object({ reason, supported: z.boolean() })) }),
  /** context-relevance: the numbers of the context lines needed to answer the query. */
  relevant_lines: z.object({ reason, relevant_lines: z.array(z.number().int()) }),
  /** context-recall: each sentence of the reference, attributed to the context or not. */
  attributions: z.object({
    sentences: z.array(z.object({ sentence: z.string(), attributed: z.boolean() })),
  }),
  /** conversation-relevance: is the last reply relevant in its conversation window. */
  relevance: z.object({ reason, verdict: z.enum(['yes', 'no']) }),
} as const;

export type ModelGradedSchema = keyof typeof MODEL_GRADED_SCHEMAS;
export type ModelGradedAnswer<K extends ModelGradedSchema> = z.infer<(typeof MODEL_GRADED_SCHEMAS)[K]>;

export function validateModelGraded<K extends ModelGradedSchema>(
  kind: K,
  data: unknown,
): Validated<ModelGradedAnswer<K>> {
  const r = MODEL_GRADED_SCHEMAS[kind].safeParse(data);
  if (r.success) return { ok: true, value: r.data as ModelGradedAnswer<K>, warnings: [] };
  const error = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`)
    .join('; ');
  return { ok: false, error };
}

/** The shape told to an endpoint that cannot enforce the schema. */
export const MODEL_GRADED_SHAPES: Record<ModelGradedSchema, string> = {
  factuality: '{"reason": "<1-2 sentences>", "category": "A"|"B"|"C"|"D"|"E"}',
  closedqa: '{"reason": "<1-2 sentences>", "meets_criterion": true|false}',
  geval_steps: '{"steps": ["<evaluation step>", ...]}',
  geval_score: '{"reason": "<1-2 sentences>", "score": <integer 0-10>}',
  questions: '{"questions": ["<question>", "<question>", "<question>"]}',
  statements: '{"statements": ["<one self-contained statement>", ...]}',
  verdicts: '{"verdicts": [{"reason": "<why>", "supported": true|false}, ... one per statement, in order]}',
  relevant_lines: '{"reason": "<1-2 sentences>", "relevant_lines": [<line number>, ...]}',
  attributions:
    '{"sentences": [{"sentence": "<a sentence of the reference>", "attributed": true|false}, ...]}',
  relevance: '{"reason": "<1-2 sentences>", "verdict": "yes"|"no"}',
};
