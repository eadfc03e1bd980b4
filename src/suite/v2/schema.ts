import { z } from 'zod';
import {
  CLOSED,
  ExpectedMessages,
  ExpectedOutput,
  Input,
  InputMessages,
  MessageSchema,
  NonEmptyText,
} from './schema-messages.js';
import { RubricListSchema } from './schema-rubrics.js';
import { EvaluatorSchema } from './schema-evaluators.js';

/**
 * The raw shape of an AgentV v2 eval suite as users write it, aliases included. This one schema
 * validates files at load time and is exported as `schema/eval-suite.schema.json` for editors,
 * so it is purely structural: semantic rules (score-range coverage, duplicate ids, files that
 * must exist) live in the loader, which has the positions to report them.
 */

/** `MAX_REPEATS` of core/repeat-setting.ts, written out: this module imports only zod (the schema script). */
const MAX_REPEATS = 20;
const REPEAT_ERROR = `repeat must be an integer from 1 to ${MAX_REPEATS} or auto`;

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
export const KNOWN_EXECUTION_KEYS = new Set(Object.keys(ExecutionSchema.shape));
export {
  DETERMINISTIC_TYPES,
  KNOWN_AGGREGATOR_KEYS,
  knownEvaluatorKeys,
  OPEN_EVALUATOR_TYPES,
  type RawEvaluator,
} from './schema-evaluators.js';
export { KNOWN_MESSAGE_KEYS, KNOWN_PART_KEYS, MessageSchema } from './schema-messages.js';
export { KNOWN_BAND_KEYS, KNOWN_RUBRIC_KEYS } from './schema-rubrics.js';
