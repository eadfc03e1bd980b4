import { writeFileNoFollow } from '../core/safe-write.js';
import { z } from 'zod';
import { excerpt } from '../core/diagnostics.js';
import { tooDeepPath } from '../core/nesting.js';
import { MAX_ANSWER_CHARS } from '../evaluators/judged-answer.js';
import { MAX_SHARDS } from '../config/shard-spec.js';

/**
 * The record stage's bundle (README "The trusted stage"): what the pull request's
 * run produced, handed to the judge stage as an artifact. The judge stage reads it as hostile
 * input: every field is bounded and checked here, and nothing in it is ever run or chooses
 * anything (a judge, a suite, a target): it is answers and gate outputs, data only.
 */
export interface RecordedAnswer {
  suite: string;
  id: string;
  /** The answer as judged (redacted and cut like any answer); null when the target errored. */
  answer: string | null;
  target: string | null;
  duration_ms: number | null;
  usage: { prompt_tokens: number | null; completion_tokens: number | null; cost_usd: number | null } | null;
  error: string | null;
  /** The target's output messages, when it gave them and they fit (trace evaluators read them). */
  output_messages?: unknown[] | null;
  /** The output message is an OpenAI model's tool-calling reply (providers.ts `toolOutput`). */
  tool_output?: boolean;
}

export interface RecordedGate {
  command: string;
  exit_code: number | null;
  output: string;
  timed_out?: boolean;
  duration_ms?: number;
}

export interface RecordBundle {
  record: 1;
  repository: string | null;
  pr_number: number | null;
  head_sha: string | null;
  base_sha: string | null;
  plan_hash: string;
  /** Set when the record run was one job of a matrix (`shard: i/n`): this bundle holds its share. */
  shard?: { index: number; total: number; planned: number };
  answers: RecordedAnswer[];
  gates: RecordedGate[];
  /** What stopped the pull request's run from recording (its suites were invalid, say). */
  errors?: string[];
}

/** The bundle's name inside the artifact, and the artifact's name (the README's workflow uploads it so). */
export const RECORD_ARTIFACT = 'rubric-eval-record';
/**
 * Largest bundle read: far above 10,000 answers of a normal size, far below what would stall the
 * judge job. A 200 MB answer is refused here, before it is inflated.
 */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
const MAX_GATE_OUTPUT = 1024 * 1024;
const MAX_ANSWERS = 100_000;
const MAX_TEXT = 4096;
/** An answer as recorded is already cut to MAX_ANSWER_CHARS plus the note saying so. */
const MAX_RECORDED_ANSWER = MAX_ANSWER_CHARS + 1000;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const shortText = z.string().max(MAX_TEXT);
const sha = z
  .string()
  .regex(/^[0-9a-f]{7,64}$/i, 'must be a commit sha')
  .nullable();

const AnswerSchema = z.object({
  suite: shortText.min(1),
  id: shortText.min(1),
  answer: z.string().max(MAX_RECORDED_ANSWER, `is longer than ${MAX_RECORDED_ANSWER} characters`).nullable(),
  target: shortText.nullable().default(null),
  duration_ms: z.number().min(0).max(1e12).nullable().default(null),
  usage: z
    .object({
      prompt_tokens: count.nullable().default(null),
      completion_tokens: count.nullable().default(null),
      cost_usd: z.number().min(0).max(1e9).nullable().default(null),
    })
    .nullable()
    .default(null),
  error: shortText.nullable().default(null),
  output_messages: z.array(z.unknown()).max(10_000).nullable().optional(),
  tool_output: z.boolean().optional(),
});

const GateSchema = z.object({
  command: shortText.min(1),
  exit_code: z.number().int().nullable(),
  output: z.string().max(MAX_GATE_OUTPUT),
  timed_out: z.boolean().optional(),
  duration_ms: z.number().min(0).max(1e12).optional(),
});

const BundleSchema = z.object({
  record: z.literal(1, { error: 'is not 1: not a rubric-eval record bundle (or a newer one)' }),
  repository: shortText.nullable(),
  pr_number: z.number().int().positive().nullable(),
  head_sha: sha,
  base_sha: sha,
  plan_hash: shortText,
  shard: z
    .object({
      index: z.number().int().min(1).max(MAX_SHARDS),
      total: z.number().int().min(1).max(MAX_SHARDS),
      planned: z.number().int().min(0).max(MAX_ANSWERS),
    })
    .refine((s) => s.index <= s.total, { error: 'index is beyond the number of shards' })
    .optional(),
  answers: z.array(AnswerSchema).max(MAX_ANSWERS),
  gates: z.array(GateSchema).max(1000),
  errors: z.array(shortText).max(1000).optional(),
});

/** The key a recorded answer is matched on: (suite path, case id). */
export const caseKey = (suite: string, id: string) => `${suite}#${id}`;

/** Deeper than any bundle the record stage writes (messages nest a few levels). */
const MAX_BUNDLE_DEPTH = 200;

/**
 * The bundle from its text, checked: its schema, and at most one answer per case and one result
 * per gate command. Every problem is named; a bundle with any problem is not used at all.
 */
export function parseBundle(text: string): { bundle: RecordBundle } | { errors: string[] } {
  if (Buffer.byteLength(text, 'utf8') > MAX_BUNDLE_BYTES)
    return { errors: [`the record bundle is over ${MAX_BUNDLE_BYTES} bytes`] };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { errors: [`the record bundle is not JSON (${excerpt((err as Error).message)})`] };
  }
  // Nested past any bundle we write (output messages included): refused before anything walks it.
  const deep = tooDeepPath(data, MAX_BUNDLE_DEPTH);
  if (deep)
    return {
      errors: [
        `the record bundle is nested past ${MAX_BUNDLE_DEPTH} levels at ${excerpt(deep.slice(0, 8).join('.'))}…`,
      ],
    };
  const r = BundleSchema.safeParse(data);
  if (!r.success)
    return {
      errors: r.error.issues
        .slice(0, 20)
        .map((i) => `the record bundle's ${i.path.join('.') || 'top level'} ${i.message}`),
    };
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const a of r.data.answers) {
    const key = caseKey(a.suite, a.id);
    if (seen.has(key)) errors.push(`the record bundle has two answers for case ${excerpt(key)}`);
    seen.add(key);
  }
  const gates = new Set<string>();
  for (const g of r.data.gates) {
    if (gates.has(g.command)) errors.push(`the record bundle has two results for gate ${excerpt(g.command)}`);
    gates.add(g.command);
  }
  return errors.length > 0 ? { errors: errors.slice(0, 20) } : { bundle: r.data as RecordBundle };
}

/**
 * What the judge stage checks of a parsed bundle against what GitHub says (never the bundle's
 * word): the repository, the head commit of the run and the pull request it belongs to.
 */
export function bundleMismatches(
  bundle: Pick<RecordBundle, 'repository' | 'head_sha' | 'pr_number'>,
  expected: { repository: string; headSha: string; prNumber: number },
): string[] {
  const out: string[] = [];
  if (bundle.repository !== expected.repository)
    out.push(
      `the record bundle is for repository ${excerpt(String(bundle.repository))}, not ${expected.repository}`,
    );
  if (bundle.head_sha?.toLowerCase() !== expected.headSha.toLowerCase())
    out.push(
      `the record bundle is for commit ${excerpt(String(bundle.head_sha))}, but the run that uploaded it ran on ${expected.headSha}`,
    );
  if (bundle.pr_number !== expected.prNumber)
    out.push(
      `the record bundle names pull request #${String(bundle.pr_number)}, but the run's commit ${expected.headSha.slice(0, 7)} is the head of pull request #${expected.prNumber}`,
    );
  return out;
}

/**
 * Writes the bundle atomically through an exclusive temporary file (core/safe-write.ts): no link
 * in the checkout, at the name or on the way to it, redirects it.
 */
export function writeBundleFile(file: string, bundle: RecordBundle): void {
  writeFileNoFollow(file, `${JSON.stringify(bundle)}\n`);
}
