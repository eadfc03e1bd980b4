import { z } from 'zod';

/**
 * The raw shape of an AgentV v2 eval suite as users write it, aliases included. This one schema
 * validates files at load time and is exported as `schema/eval-suite.schema.json` for editors,
 * so it is purely structural: semantic rules (score-range coverage, duplicate ids, files that
 * must exist) live in the loader, which has the positions to report them.
 */

const NonEmptyText = z.string().min(1, { error: 'must not be empty' });
const Weight = z.number({ error: 'weight must be a number' }).meta({ description: 'Relative weight, >= 0.' });

/**
 * Objects AgentV closes (and rubric items, whose typos loosen a gate) are closed in the exported
 * JSON Schema, so editors flag a typo as it is typed. At load time they stay loose: the loader
 * reports unknown keys itself, with a position and a did-you-mean.
 */
const CLOSED = { additionalProperties: false } as const;

export const ContentPartSchema = z
  .looseObject({
    type: z.enum(['text', 'file'], { error: "part type must be 'text' or 'file'" }),
    value: z.string({ error: 'part value must be a string' }),
  })
  .meta(CLOSED);

export const MessageContentSchema = z.union(
  [z.string(), z.array(ContentPartSchema), z.record(z.string(), z.unknown())],
  { error: 'content must be a string, a list of {type: text|file, value} parts, or an object' },
);

export const MessageSchema = z
  .looseObject({
    role: z
      .string({ error: 'role must be a string' })
      .meta({ description: 'system, user, assistant or tool' }),
    content: MessageContentSchema.optional(),
  })
  .meta({ id: 'Message', ...CLOSED });

const Messages = z.union([z.string(), z.array(MessageSchema)], {
  error: 'must be a string (one user message) or a list of {role, content} messages',
});

const ExpectedMessages = z.union([z.string(), z.array(MessageSchema), z.record(z.string(), z.unknown())], {
  error: 'must be a string, a list of messages, or an object (structured assistant content)',
});

export const ScoreRangeEntrySchema = z
  .looseObject({
    score_range: z.array(z.number({ error: 'bounds must be numbers' }), {
      error: 'score_range must be [min, max]',
    }),
    expected_outcome: z.string({ error: 'expected_outcome must be a string' }).optional(),
    description: z.string().optional(),
  })
  .meta(CLOSED);

export const ScoreRangesSchema = z.union(
  [
    z.array(ScoreRangeEntrySchema),
    z.record(z.string(), z.string({ error: 'each band outcome must be a string' })),
  ],
  {
    error:
      'score_ranges must be a list of {score_range: [min, max], expected_outcome} or a map {lower_bound: outcome}',
  },
);

export const RubricObjectSchema = z
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

export const RubricItemSchema = z
  .union([NonEmptyText, RubricObjectSchema], {
    error:
      'a rubric item must be a string or an object with id/expected_outcome/weight/required/score_ranges',
  })
  .meta({
    id: 'RubricItem',
    description: 'A checklist item (a string, or an object) or a score-range criterion (with score_ranges).',
  });

export const RubricListSchema = z.array(RubricItemSchema, { error: 'rubrics must be a list' });

const Script = z.union([NonEmptyText, z.array(z.string()).min(1)], {
  error: 'script must be a command string or a non-empty argv list',
});

const EVALUATOR_TYPES = ['llm_judge', 'llm-judge', 'code_judge', 'code-judge', 'composite'] as const;
const AGGREGATOR_TYPES = ['weighted_average', 'code_judge', 'code-judge', 'llm_judge', 'llm-judge'] as const;

export const AggregatorSchema = z.looseObject({
  type: z.enum(AGGREGATOR_TYPES, { error: `aggregator type must be one of ${AGGREGATOR_TYPES.join(', ')}` }),
  weights: z.record(z.string(), Weight).optional(),
  script: Script.optional(),
  path: Script.optional().meta({ description: 'Alias of script.' }),
  cwd: z.string().optional(),
  prompt: z.string().optional(),
});

export interface RawEvaluator {
  name: string;
  type: (typeof EVALUATOR_TYPES)[number];
  weight?: number;
  rubrics?: unknown[];
  prompt?: string;
  script?: string | string[];
  path?: string | string[];
  cwd?: string;
  evaluators?: RawEvaluator[];
  aggregator?: z.infer<typeof AggregatorSchema>;
  [key: string]: unknown;
}

/**
 * The fields of each evaluator type beyond `name`, `type` and `weight`: the one list that both
 * validates them and tells the loader which keys a type knows (a new type gets the typo check by
 * adding its entry here). A code judge's other keys are its config; they stay allowed.
 */
const evaluatorFields = () =>
  ({
    llm_judge: {
      rubrics: RubricListSchema.optional(),
      prompt: z.string().optional().meta({ description: 'Prompt template file (llm_judge).' }),
    },
    code_judge: {
      script: Script.optional(),
      path: Script.optional(),
      cwd: z.string().optional(),
    },
    composite: {
      evaluators: z.array(EvaluatorSchema).optional(),
      aggregator: AggregatorSchema.optional(),
    },
  }) satisfies Record<string, z.ZodRawShape>;

const EVALUATOR_BASE = ['name', 'type', 'weight'] as const;

export const EvaluatorSchema: z.ZodType<RawEvaluator> = z
  .lazy(
    () =>
      // Every type's fields in one loose object; RawEvaluator above is its declared shape.
      z.looseObject({
        name: NonEmptyText,
        type: z.enum(EVALUATOR_TYPES, {
          error: `evaluator type must be one of ${EVALUATOR_TYPES.join(', ')}`,
        }),
        weight: Weight.optional(),
        ...(Object.assign({}, ...Object.values(evaluatorFields())) as z.ZodRawShape),
      }) as unknown as z.ZodType<RawEvaluator>,
  )
  .meta({ id: 'Evaluator', description: 'llm_judge, code_judge or composite evaluator.' });

/** Keys an evaluator of `type` (either spelling) knows; null for a type the schema rejects anyway. */
export function knownEvaluatorKeys(type: unknown): Set<string> | null {
  const fields = evaluatorFields() as Record<string, z.ZodRawShape>;
  const own = typeof type === 'string' ? fields[type.replace(/-/g, '_')] : undefined;
  return own ? new Set([...EVALUATOR_BASE, ...Object.keys(own)]) : null;
}

/** Evaluator types whose unknown keys are passed on as config rather than ignored. */
export const OPEN_EVALUATOR_TYPES: ReadonlySet<string> = new Set(['code_judge']);

export const ExecutionSchema = z.looseObject({
  target: z.string().optional(),
  evaluators: z.array(EvaluatorSchema, { error: 'evaluators must be a list' }).optional(),
});

export const EvalCaseSchema = z
  .looseObject({
    id: z.union([NonEmptyText, z.number()], { error: 'id must be a string' }),
    expected_outcome: z.string().optional(),
    outcome: z.string().optional().meta({ description: 'Alias of expected_outcome.' }),
    criteria: z.string().optional().meta({ description: 'Alias of expected_outcome.' }),
    input_messages: Messages.optional(),
    input: Messages.optional().meta({ description: 'Alias of input_messages.' }),
    expected_messages: ExpectedMessages.optional(),
    expected_output: ExpectedMessages.optional().meta({ description: 'Alias of expected_messages.' }),
    conversation_id: z.string().optional(),
    rubrics: RubricListSchema.optional(),
    execution: ExecutionSchema.optional(),
  })
  .meta({
    id: 'EvalCase',
    description: 'One eval case: the input, what a good answer achieves, and how to judge it.',
  });

export const EvalSuiteSchema = z
  .looseObject({
    $schema: z.string().optional(),
    description: z.string().optional(),
    dataset: z.string().optional(),
    target: z.string().optional(),
    execution: ExecutionSchema.optional(),
    evalcases: z.array(EvalCaseSchema).optional(),
    eval_cases: z.array(EvalCaseSchema).optional().meta({ description: 'Alias of evalcases.' }),
    tests: z.array(EvalCaseSchema).optional().meta({ description: 'Alias of evalcases.' }),
  })
  .meta({
    ...CLOSED,
    title: 'rubric-eval / AgentV v2 eval suite',
    description: 'An eval suite: cases with input messages, expected outcome, rubrics and evaluators.',
  });

export type RawSuite = z.infer<typeof EvalSuiteSchema>;
export type RawCase = z.infer<typeof EvalCaseSchema>;
export type RawRubricObject = z.infer<typeof RubricObjectSchema>;
export type RawMessage = z.infer<typeof MessageSchema>;

/** Keys each object kind knows; anything else is warned about (a typo such as `rubric:` would otherwise be silently ignored). */
export const KNOWN_SUITE_KEYS = new Set(Object.keys(EvalSuiteSchema.shape));
export const KNOWN_CASE_KEYS = new Set(Object.keys(EvalCaseSchema.shape));
export const KNOWN_RUBRIC_KEYS = new Set(Object.keys(RubricObjectSchema.shape));
export const KNOWN_BAND_KEYS = new Set(Object.keys(ScoreRangeEntrySchema.shape));
export const KNOWN_EXECUTION_KEYS = new Set(Object.keys(ExecutionSchema.shape));
export const KNOWN_AGGREGATOR_KEYS = new Set(Object.keys(AggregatorSchema.shape));
export const KNOWN_MESSAGE_KEYS = new Set(Object.keys(MessageSchema.shape));
export const KNOWN_PART_KEYS = new Set(Object.keys(ContentPartSchema.shape));
