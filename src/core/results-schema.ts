import { z } from 'zod';
import { type EvaluatorResult } from './results.js';
import { MAX_REPEATS } from './repeat-setting.js';

/**
 * The results model (results.ts) as a schema, for results files this run did not write: a shard's
 * file in a merge. Every field the report, the merge or the verdict reads is checked for its type
 * (verdicts and kinds from their sets, counts and exit codes as numbers, votes as `n/m`), so a
 * file can only bring text where the report treats it as quoted text, through the neutraliser
 * (report/inert.ts). Fields the report never reads are carried as they are.
 */

const Text = z.string();
const NullableText = z.string().nullable();
const Count = z.number().int().min(0);
const Unit = z.number().min(0).max(1);
const Verdict = z.enum(['pass', 'borderline', 'fail']);
const CaseVerdict = z.enum(['pass', 'borderline', 'fail', 'error', 'skipped']);
/** A case's verdict: with repeats it may be `inconclusive`. */
const CaseOutcome = z.enum(['pass', 'borderline', 'fail', 'error', 'skipped', 'inconclusive']);
const Num = z.number().nullable();

const UsageSchema = z.looseObject({
  judge_calls: Count,
  cached_calls: Count,
  prompt_tokens: z.number().min(0),
  completion_tokens: z.number().min(0),
  cost_usd: z.number().min(0).nullable(),
});

const CheckSchema = z.looseObject({
  id: Text,
  satisfied: z.boolean().optional(),
  score: z.number().min(0).max(10).optional(),
  weight: z.number(),
  required: z.boolean(),
  required_min_score: z.number().nullable().optional(),
  reasoning: NullableText,
  votes: z
    .string()
    .regex(/^\d{1,3}\/\d{1,3}$/, 'votes must read like 2/3')
    .optional(),
  sample_scores: z.array(z.number()).optional(),
  unstable: z.literal(true).optional(),
  text: Text.optional(),
  advisory: Text.optional(),
});

const EvaluatorSchema: z.ZodType<EvaluatorResult> = z.lazy(() =>
  z.looseObject({
    name: Text,
    type: z.enum([
      'llm_judge',
      'code_judge',
      'composite',
      'field_accuracy',
      'latency',
      'cost',
      'token_usage',
      'tool_trajectory',
      'execution_metrics',
      'text_assertion',
      'code_assertion',
      'similarity',
      'model_graded',
      'comparison',
      'tool_call',
    ]),
    weight: z.number(),
    score: Unit,
    verdict: CaseVerdict,
    mode: z.enum(['checklist', 'score_range', 'freeform', 'prompt', 'aggregate', 'rubric']).optional(),
    threshold: z.number().optional(),
    checks: z.array(CheckSchema).optional(),
    hits: z.array(Text).optional(),
    misses: z.array(Text).optional(),
    reasoning: NullableText.optional(),
    gating_violations: z.array(Text),
    error: Text.optional(),
    warnings: z.array(Text).optional(),
    children: z.array(EvaluatorSchema).optional(),
    usage: UsageSchema.optional(),
    samples: Count.optional(),
    sample_scores: z.array(z.number()).optional(),
    unstable: z.literal(true).optional(),
    negated: z.literal(true).optional(),
    required: z.literal(true).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    transformed_output: Text.optional(),
  }),
) as unknown as z.ZodType<EvaluatorResult>;

const CaseSchema = z.looseObject({
  file: Text.optional(),
  id: Text,
  label: Text.optional(),
  definition_hash: z.string().regex(/^[0-9a-f]{16}$/, 'a 16-hex definition_hash'),
  line: Count.optional(),
  verdict: CaseOutcome,
  score: Unit,
  gating_violations: z.array(Text),
  evaluators: z.array(EvaluatorSchema),
  target: NullableText,
  answer: NullableText,
  answer_cut: z
    .looseObject({
      original_chars: Count,
      kept_chars: Count,
      output_messages_dropped: z.boolean().optional(),
    })
    .optional(),
  error: Text.optional(),
  duration_ms: z.number().min(0),
  usage: UsageSchema.optional(),
  unstable: z.literal(true).optional(),
  advisory_only: z.literal(true).optional(),
  skipped: z.enum(['budget', 'no-judge-credential']).optional(),
  answered_by: z.enum(['record', 'judge']).optional(),
  cluster: Text.optional(),
  // Repeats (README "Repeats"): what the reports read of them.
  repeats: z.number().int().min(1).max(MAX_REPEATS).optional(),
  pass_rate: Unit.optional(),
  pass_rate_low: Unit.optional(),
  pass_rate_high: Unit.optional(),
  answers: z
    .array(
      z.looseObject({
        repeat: z.number().int().min(1).max(MAX_REPEATS),
        verdict: CaseVerdict,
        score: Unit,
        gating_violations: z.array(Text),
        evaluators: z.array(EvaluatorSchema),
        answer: NullableText,
        error: Text.optional(),
      }),
    )
    .max(MAX_REPEATS)
    .optional(),
});

const GateSchema = z.looseObject({
  command: Text,
  verdict: z.enum(['pass', 'fail']),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number().min(0),
  output: Text,
  line: Count.optional(),
});

const CriterionSchema = z.looseObject({
  id: Text,
  kind: z.enum(['must', 'nice']),
  text: Text,
  satisfied: z.boolean().nullable(),
  reasoning: NullableText,
});

const CheckerSchema = z.looseObject({
  path: Text,
  title: NullableText,
  hash: Text,
  verdict: z.enum(['pass', 'fail']),
  score: Unit,
  gates: z.array(GateSchema),
  checks: z.array(CriterionSchema),
  judge_verdict: z.enum(['accept', 'retry', 'terminate']).nullable(),
  feedback: NullableText,
  counts: z.looseObject({
    gates_passed: Count,
    gates_total: Count,
    must_passed: Count,
    must_total: Count,
    nice_passed: Count,
    nice_total: Count,
  }),
  error: Text.optional(),
  usage: UsageSchema.optional(),
});

const SuiteSchema = z.looseObject({
  path: Text,
  description: NullableText,
  cases: z.array(CaseSchema),
});

const Agreement = z.looseObject({
  n: Count,
  agreement: Num,
  kappa: Num,
  kappa_low: Num,
  kappa_high: Num,
  tpr: Num,
  tnr: Num,
  judge_yes_human_no: Count,
  judge_no_human_yes: Count,
  kappa_note: Text.optional(),
});
const CalibrationRowSchema = Agreement.extend({
  suite: Text,
  id: Text,
  check: Text,
  kind: z.enum(['checklist', 'range']),
  weighted_kappa: Num.optional(),
  mae: Num.optional(),
});
const BelowFloorSchema = z.looseObject({
  suite: Text,
  id: Text,
  check: Text,
  n: Count,
  kappa: z.number(),
  reason: Text,
});
/** A merge carries shard 1's calibration to the comment: checked like every other field. */
const CalibrationSchema = z.looseObject({
  file: Text,
  source: Text,
  labels: Count,
  floor: Num,
  overall: Agreement,
  rows: z.array(CalibrationRowSchema),
  below_floor: z.array(BelowFloorSchema),
  effect: z.enum(['advisory', 'fails']),
  errors: z.array(z.looseObject({ line: Count, suite: Text, id: Text, error: Text })),
  after_merge: z
    .looseObject({
      labels: Count,
      overall: Agreement,
      rows: z.array(CalibrationRowSchema),
      below_floor: z.array(BelowFloorSchema),
    })
    .nullable(),
  usage: UsageSchema,
  after_merge_error: Text.optional(),
});

/** The run-level fields every results file has (a shard's adds `shard`). */
export const RunResultsSchema = z.looseObject({
  version: z.literal(1),
  suites: z.array(SuiteSchema),
  verdict: Verdict,
  score: Unit,
  rubric: CheckerSchema.nullable(),
  usage: UsageSchema,
  partial: z.boolean(),
  errors: z.array(Text),
  warnings: z.array(Text),
  judge: z.object({ model: Text, base_url: Text }).nullable(),
  judge_stats: z
    .looseObject({
      http_calls: Count,
      retries: Count.optional(),
      repairs: Count.optional(),
      rate_limited: Count.optional(),
      timeouts: Count.optional(),
      peak_in_flight: Count.optional(),
    })
    .optional(),
  started_at: z.iso.datetime(),
  duration_ms: z.number().min(0),
  calibration: CalibrationSchema.nullable().optional(),
});
