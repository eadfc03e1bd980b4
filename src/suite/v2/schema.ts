import { z } from 'zod';
import { excerpt } from '../../core/diagnostics.js';
import { didYouMean } from '../../core/did-you-mean.js';

/**
 * The raw shape of an AgentV v2 eval suite as users write it, aliases included. This one schema
 * validates files at load time and is exported as `schema/eval-suite.schema.json` for editors,
 * so it is purely structural: semantic rules (score-range coverage, duplicate ids, files that
 * must exist) live in the loader, which has the positions to report them.
 */

/** `MAX_REPEATS` of core/repeat-setting.ts, written out: this module imports only zod (the schema script). */
const MAX_REPEATS = 20;
const REPEAT_ERROR = `repeat must be an integer from 1 to ${MAX_REPEATS} or auto`;
const NonEmptyText = z.string().min(1, { error: 'must not be empty' });
const Weight = z.number({ error: 'weight must be a number' }).meta({ description: 'Relative weight, >= 0.' });

/**
 * Objects AgentV closes (and rubric items, whose typos loosen a gate) are closed in the exported
 * JSON Schema, so editors flag a typo as it is typed. At load time they stay loose: the loader
 * reports unknown keys itself, with a position and a did-you-mean.
 */
const CLOSED = { additionalProperties: false } as const;

const ContentPartSchema = z
  .looseObject({
    type: z.enum(['text', 'file'], { error: "part type must be 'text' or 'file'" }),
    value: z.string({ error: 'part value must be a string' }),
  })
  .meta(CLOSED);

const MessageContentSchema = z.union(
  [z.string(), z.array(ContentPartSchema), z.record(z.string(), z.unknown())],
  { error: 'content must be a string, a list of {type: text|file, value} parts, or an object' },
);

export const MessageSchema = z
  .looseObject({
    role: z
      .string({ error: 'role must be a string' })
      .meta({ description: 'system, user, assistant or tool' }),
    content: MessageContentSchema.optional(),
    // AgentV's loader accepts these on messages (its JSON Schema forgets them); kept as written.
    name: z.string().optional().meta({ description: 'Speaker name (AgentV); not sent to the judge.' }),
    tool_calls: z.array(z.unknown()).optional().meta({
      description:
        "An expected message's tool calls (AgentV): code judges and {{expected_messages}} get them as written; grade them with tool_trajectory.",
    }),
  })
  .meta({ id: 'Message', ...CLOSED });

// Each message key's own error names the key: a case has four of them and two are aliases.
const InputMessages = z.array(MessageSchema, {
  error: 'input_messages must be a list of {role, content} messages',
});
const Input = z.union([z.string(), z.array(MessageSchema)], {
  error: 'input must be a string (one user message) or a list of {role, content} messages',
});
const ExpectedMessages = z.array(MessageSchema, {
  error: 'expected_messages must be a list of {role, content} messages',
});
/** Its items are checked as messages by the loader when the first one is a message (AgentV's test). */
const ExpectedOutput = z.union(
  [
    z.string(),
    z.array(z.unknown()).meta({
      description: 'A list of messages, or any other list (one assistant message with that list as content).',
    }),
    z.record(z.string(), z.unknown()),
  ],
  {
    error:
      'expected_output must be a string, a list (of messages, or structured content) or an object (structured assistant content)',
  },
);

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

const RubricListSchema = z.array(RubricItemSchema, { error: 'rubrics must be a list' });

const Script = z.union([NonEmptyText, z.array(z.string()).min(1)], {
  error: 'script must be a command string or a non-empty argv list',
});

/** Evaluators that score without a judge or a script, from the answer and its metrics alone. */
export const DETERMINISTIC_TYPES = [
  'field_accuracy',
  'latency',
  'cost',
  'token_usage',
  'tool_trajectory',
  'execution_metrics',
] as const;
const EVALUATOR_TYPES = [
  'llm_judge',
  'llm-judge',
  'code_judge',
  'code-judge',
  'composite',
  ...DETERMINISTIC_TYPES,
] as const;
const AGGREGATOR_TYPES = ['weighted_average', 'code_judge', 'code-judge', 'llm_judge', 'llm-judge'] as const;

const AggregatorSchema = z.looseObject({
  type: z.enum(AGGREGATOR_TYPES, { error: `aggregator type must be one of ${AGGREGATOR_TYPES.join(', ')}` }),
  weights: z.record(z.string(), Weight).optional(),
  script: Script.optional(),
  path: Script.optional().meta({ description: 'Alias of script.' }),
  cwd: z.string().optional(),
  prompt: z.string().optional(),
});

const NonNegative = (what: string) =>
  z.number({ error: `${what} must be a number` }).min(0, { error: `${what} must be >= 0` });

/** Keys every evaluator has, whatever its type. */
const evaluatorBase = {
  name: NonEmptyText,
  weight: Weight.optional(),
};

const PromptScriptSchema = z
  .looseObject({
    script: z.array(z.string(), { error: 'prompt.script must be an argv list' }).min(1),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    id: 'PromptScript',
    description:
      'A script that receives the case (JSON on stdin, snake_case) and prints the judge prompt (AgentV prompt templates).',
  });

const LlmJudgeEvaluatorSchema = z.looseObject({
  ...evaluatorBase,
  type: z.enum(['llm_judge', 'llm-judge']),
  rubrics: RubricListSchema.optional(),
  prompt: z
    .union([z.string(), PromptScriptSchema], {
      error: 'prompt must be a prompt file path or {script: [argv], config?}',
    })
    .optional()
    .meta({ description: 'Prompt template file, or a prompt script object.' }),
  config: z.record(z.string(), z.unknown()).optional(),
  model: z.string().optional(),
});

const CodeJudgeEvaluatorSchema = z.looseObject({
  ...evaluatorBase,
  type: z.enum(['code_judge', 'code-judge']),
  script: Script.optional(),
  path: Script.optional(),
  cwd: z.string().optional(),
});

const FieldSpecSchema = z
  .looseObject({
    path: NonEmptyText.meta({ description: 'Dot path with [i] indexes, e.g. line_items[0].amount.' }),
    match: z.enum(['exact', 'numeric_tolerance', 'date'], {
      error: 'match must be one of exact, numeric_tolerance, date (for fuzzy matching use a code_judge)',
    }),
    required: z.boolean({ error: 'required must be true or false' }).optional(),
    weight: Weight.optional(),
    tolerance: NonNegative('tolerance').optional(),
    relative: z.boolean({ error: 'relative must be true or false' }).optional(),
    formats: z.array(z.string()).optional(),
  })
  .meta({ id: 'FieldSpec' });

const FieldAccuracyEvaluatorSchema = z.looseObject({
  ...evaluatorBase,
  type: z.literal('field_accuracy'),
  fields: z.array(FieldSpecSchema, { error: 'fields must be a list of {path, match, ...}' }).min(1, {
    error: 'fields must not be empty',
  }),
  aggregation: z
    .enum(['weighted_average', 'all_or_nothing'], {
      error: 'aggregation must be weighted_average or all_or_nothing',
    })
    .optional(),
});

const LatencyEvaluatorSchema = z.looseObject({
  ...evaluatorBase,
  type: z.literal('latency'),
  threshold: NonNegative('threshold').meta({
    description: 'Most milliseconds the target call may take (inclusive).',
  }),
});

const CostEvaluatorSchema = z.looseObject({
  ...evaluatorBase,
  type: z.literal('cost'),
  budget: NonNegative('budget').meta({ description: 'Most USD the target call may cost (inclusive).' }),
});

const TokenUsageEvaluatorSchema = z
  .looseObject({
    ...evaluatorBase,
    type: z.literal('token_usage'),
    max_total: NonNegative('max_total').optional(),
    max_input: NonNegative('max_input').optional(),
    max_output: NonNegative('max_output').optional(),
  })
  .refine((e) => e.max_total !== undefined || e.max_input !== undefined || e.max_output !== undefined, {
    error: 'a token_usage evaluator needs at least one of max_total, max_input, max_output',
  });

const ToolCallExpectationSchema = z
  .looseObject({
    tool: NonEmptyText,
    args: z
      .union([z.literal('any'), z.record(z.string(), z.unknown())], {
        error: "args must be an object (keys compared) or 'any'",
      })
      .optional(),
    max_duration_ms: NonNegative('max_duration_ms').optional(),
    input: z.unknown().optional().meta({ description: 'Not compared (AgentV v2.6.1 compares only args).' }),
    output: z.unknown().optional().meta({ description: 'Not compared (AgentV v2.6.1 compares only args).' }),
  })
  .meta({ id: 'ToolCallExpectation' });

const ToolTrajectoryEvaluatorSchema = z
  .looseObject({
    ...evaluatorBase,
    type: z.literal('tool_trajectory'),
    mode: z.enum(['any_order', 'in_order', 'exact'], { error: 'mode must be any_order, in_order or exact' }),
    minimums: z.record(z.string(), NonNegative('a minimum')).optional(),
    expected: z
      .array(ToolCallExpectationSchema, { error: 'expected must be a list of {tool, args?}' })
      .optional(),
  })
  .refine((e) => e.mode !== 'any_order' || e.minimums !== undefined, {
    error: 'mode any_order needs `minimums` ({tool: count})',
    path: ['minimums'],
  })
  .refine((e) => e.mode === 'any_order' || e.expected !== undefined, {
    error: 'modes in_order and exact need `expected` (a list of {tool, args?})',
    path: ['expected'],
  });

const ExecutionMetricsEvaluatorSchema = z
  .looseObject({
    ...evaluatorBase,
    type: z.literal('execution_metrics'),
    max_tool_calls: NonNegative('max_tool_calls').optional(),
    max_llm_calls: NonNegative('max_llm_calls').optional(),
    max_tokens: NonNegative('max_tokens').optional(),
    max_cost_usd: NonNegative('max_cost_usd').optional(),
    max_duration_ms: NonNegative('max_duration_ms').optional(),
    target_exploration_ratio: NonNegative('target_exploration_ratio').optional(),
    exploration_tolerance: NonNegative('exploration_tolerance').optional(),
  })
  .refine(
    (e) =>
      [
        e.max_tool_calls,
        e.max_llm_calls,
        e.max_tokens,
        e.max_cost_usd,
        e.max_duration_ms,
        e.target_exploration_ratio,
      ].some((v) => v !== undefined),
    {
      error:
        'an execution_metrics evaluator needs at least one threshold (max_tool_calls, max_llm_calls, max_tokens, max_cost_usd, max_duration_ms or target_exploration_ratio)',
    },
  );

export interface RawEvaluator {
  name: string;
  type: (typeof EVALUATOR_TYPES)[number];
  weight?: number;
  rubrics?: unknown[];
  prompt?: string | z.infer<typeof PromptScriptSchema>;
  script?: string | string[];
  path?: string | string[];
  cwd?: string;
  evaluators?: RawEvaluator[];
  aggregator?: z.infer<typeof AggregatorSchema>;
  [key: string]: unknown;
}

const CompositeEvaluatorSchema = z.looseObject({
  ...evaluatorBase,
  type: z.literal('composite'),
  evaluators: z.array(z.lazy(() => EvaluatorSchema)).optional(),
  aggregator: AggregatorSchema.optional(),
});

/** Each evaluator type's own schema, so every type's known keys can be derived from it. */
const EVALUATOR_SCHEMAS = {
  llm_judge: LlmJudgeEvaluatorSchema,
  code_judge: CodeJudgeEvaluatorSchema,
  composite: CompositeEvaluatorSchema,
  field_accuracy: FieldAccuracyEvaluatorSchema,
  latency: LatencyEvaluatorSchema,
  cost: CostEvaluatorSchema,
  token_usage: TokenUsageEvaluatorSchema,
  tool_trajectory: ToolTrajectoryEvaluatorSchema,
  execution_metrics: ExecutionMetricsEvaluatorSchema,
} as const;

/** An unknown evaluator type: the types, and the one it is most likely a misspelling of. */
function evaluatorTypeError(iss: { input?: unknown }): string {
  const given =
    iss.input && typeof iss.input === 'object' ? (iss.input as { type?: unknown }).type : undefined;
  const near = typeof given === 'string' ? didYouMean(given, EVALUATOR_TYPES) : null;
  const known = `evaluator type must be one of ${EVALUATOR_TYPES.join(', ')}`;
  return typeof given === 'string'
    ? `${known} (got '${excerpt(given)}')${near ? `; did you mean '${near}'?` : ''}`
    : known;
}

const EvaluatorSchema: z.ZodType<RawEvaluator> = z
  .lazy(
    () =>
      z.discriminatedUnion(
        'type',
        [
          LlmJudgeEvaluatorSchema,
          CodeJudgeEvaluatorSchema,
          CompositeEvaluatorSchema,
          FieldAccuracyEvaluatorSchema,
          LatencyEvaluatorSchema,
          CostEvaluatorSchema,
          TokenUsageEvaluatorSchema,
          ToolTrajectoryEvaluatorSchema,
          ExecutionMetricsEvaluatorSchema,
        ],
        { error: evaluatorTypeError },
      ) as unknown as z.ZodType<RawEvaluator>,
  )
  .meta({
    id: 'Evaluator',
    description:
      'llm_judge, code_judge, composite, field_accuracy, latency, cost, token_usage, tool_trajectory or execution_metrics evaluator.',
  });

/**
 * Keys an evaluator of `type` (either spelling) knows, from its own schema: a new type gets the
 * typo check by its entry in EVALUATOR_SCHEMAS. Null for a type the schema rejects anyway.
 */
export function knownEvaluatorKeys(type: unknown): Set<string> | null {
  const schemas = EVALUATOR_SCHEMAS as Record<string, { shape: z.ZodRawShape }>;
  const own = typeof type === 'string' ? schemas[type.replace(/-/g, '_')] : undefined;
  return own ? new Set(Object.keys(own.shape)) : null;
}

/** Evaluator types whose unknown keys are passed on as config rather than ignored. */
export const OPEN_EVALUATOR_TYPES: ReadonlySet<string> = new Set(['code_judge']);

const ExecutionSchema = z.looseObject({
  target: z.string().optional(),
  evaluators: z.array(EvaluatorSchema, { error: 'evaluators must be a list' }).optional(),
});

/**
 * Keys of the AgentV 5 / promptfoo shape: a file with them is read by that format's loader, so
 * in this schema they never match (the JSON Schema's two shapes stay apart for editors).
 */
function agentV5Keys(keys: string[]) {
  return Object.fromEntries(
    keys.map((k) => [
      k,
      z.never({ error: `\`${k}\` belongs to the AgentV 5 / promptfoo format` }).optional(),
    ]),
  );
}

export const EvalCaseSchema = z
  .looseObject({
    id: z.union([NonEmptyText, z.number()], { error: 'id must be a string' }),
    expected_outcome: z.string().optional(),
    outcome: z.string().optional().meta({ description: 'Alias of expected_outcome.' }),
    criteria: z.string().optional().meta({ description: 'Alias of expected_outcome.' }),
    input_messages: InputMessages.optional(),
    input: Input.optional().meta({
      description:
        'Alias of input_messages (a string is one user message); input_messages wins when both are given.',
    }),
    expected_messages: ExpectedMessages.optional(),
    expected_output: ExpectedOutput.optional().meta({
      description:
        'Alias of expected_messages: a string or object is one assistant message; expected_messages wins when both are given.',
    }),
    conversation_id: z.string().optional(),
    cluster: z.string().optional().meta({
      description:
        "Cases that move together (same topic or template): the pull request's effect resamples them as one.",
    }),
    description: z.string().optional(),
    reference_answer: z.string().optional().meta({
      description: 'The reference answer judges see; default: the last expected assistant message.',
    }),
    rubrics: RubricListSchema.optional(),
    execution: ExecutionSchema.optional(),
    evaluators: z
      .array(EvaluatorSchema, { error: 'evaluators must be a list' })
      .optional()
      .meta({ description: "The case's evaluators when its execution.evaluators is not given (AgentV)." }),
    ...agentV5Keys(['vars', 'assert']),
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
    min_pass_rate: z
      .number({ error: 'min_pass_rate must be a number from 0 to 1' })
      .min(0, { error: 'min_pass_rate must be a number from 0 to 1' })
      .max(1, { error: 'min_pass_rate must be a number from 0 to 1' })
      .optional()
      .meta({
        description:
          'Share of the suite’s cases that must pass (0..1); with it, a failing case fails the check only through the rate.',
      }),
    repeat: z
      .union(
        [
          z
            .int({ error: REPEAT_ERROR })
            .min(1, { error: REPEAT_ERROR })
            .max(MAX_REPEATS, { error: REPEAT_ERROR }),
          z.literal('auto'),
        ],
        { error: REPEAT_ERROR },
      )
      .optional()
      .meta({
        description:
          'Answers per case from the target (README "Repeats"): 1..20, or auto (more only while the evidence cannot decide the case). The `repeat` input overrides it.',
      }),
    evalcases: z.array(EvalCaseSchema).optional(),
    eval_cases: z.array(EvalCaseSchema).optional().meta({ description: 'Alias of evalcases.' }),
    tests: z.array(EvalCaseSchema).optional().meta({ description: 'Alias of evalcases.' }),
    ...agentV5Keys(['prompts', 'providers', 'default_test', 'defaultTest']),
  })
  .meta({
    ...CLOSED,
    title: 'rubric-eval / AgentV v2 eval suite',
    description: 'An eval suite: cases with input messages, expected outcome, rubrics and evaluators.',
  });

export type RawCase = z.infer<typeof EvalCaseSchema>;
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
