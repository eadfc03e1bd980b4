import { z } from 'zod';
import { excerpt } from '../../core/diagnostics.js';
import { didYouMean } from '../../core/did-you-mean.js';
import { NonEmptyText, Weight } from './schema-messages.js';
import { RubricListSchema } from './schema-rubrics.js';

/** The v2 schema's evaluators: one schema per type, so each type's known keys derive from it. */

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

export const EvaluatorSchema: z.ZodType<RawEvaluator> = z
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

export const KNOWN_AGGREGATOR_KEYS = new Set(Object.keys(AggregatorSchema.shape));
