import { z } from 'zod';
import { excerpt } from '../../core/diagnostics.js';
import { NonEmptyText, Weight, CLOSED } from './schema-messages.js';

/** The v2 schema's rubric items: checklist items and 0-10 score ranges. */

const ScoreRangeEntrySchema = z
  .looseObject({
    score_range: z.array(z.number({ error: 'bounds must be numbers' }), {
      error: 'score_range must be [min, max]',
    }),
    expected_outcome: z.string({ error: 'expected_outcome must be a string' }).optional(),
    description: z.string().optional(),
  })
  .meta(CLOSED);

const ScoreRangesSchema = z.union(
  [
    z.array(ScoreRangeEntrySchema),
    z.record(z.string(), z.string({ error: 'each band outcome must be a string' })),
  ],
  {
    error:
      'score_ranges must be a list of {score_range: [min, max], expected_outcome} or a map {lower_bound: outcome}',
  },
);

const RubricObjectSchema = z
  .looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    expected_outcome: z.string().optional(),
    description: z.string().optional().meta({ description: 'Alias of expected_outcome.' }),
    outcome: z.string().optional(),
    weight: Weight.optional(),
    required: z.boolean({ error: 'required must be true or false' }).optional(),
    required_min_score: z.number({ error: 'required_min_score must be a number' }).optional(),
    score_ranges: ScoreRangesSchema.optional(),
  })
  .meta(CLOSED);

/**
 * An object item that fails says which field is wrong (`required: ture`), not that the item is
 * neither a string nor an object: the object branch's own messages, with the value given.
 */
function rubricItemError(iss: {
  input?: unknown;
  errors?: readonly (readonly z.core.$ZodIssue[])[];
}): string {
  const input = iss.input;
  const own = iss.errors?.[1];
  if (input && typeof input === 'object' && !Array.isArray(input) && own?.length) {
    return own
      .map((i) => {
        const key = i.path[0];
        const given = typeof key === 'string' ? (input as Record<string, unknown>)[key] : undefined;
        return given === undefined ? i.message : `${i.message} (got '${excerpt(String(given))}')`;
      })
      .join('; ');
  }
  return 'a rubric item must be a string or an object with id/expected_outcome/weight/required/score_ranges';
}

const RubricItemSchema = z.union([NonEmptyText, RubricObjectSchema], { error: rubricItemError }).meta({
  id: 'RubricItem',
  description: 'A checklist item (a string, or an object) or a score-range criterion (with score_ranges).',
});

export const RubricListSchema = z.array(RubricItemSchema, { error: 'rubrics must be a list' });

export const KNOWN_RUBRIC_KEYS = new Set(Object.keys(RubricObjectSchema.shape));
export const KNOWN_BAND_KEYS = new Set(Object.keys(ScoreRangeEntrySchema.shape));
