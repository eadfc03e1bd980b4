import { readFileSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { type RunResults } from '../core/results.js';
import { MAX_REPEATS } from '../core/repeat-setting.js';

/** One shard's results file, read and checked for the fields a merge relies on. */
export interface ShardFile {
  /** As given to the user: relative to the working directory when inside it. */
  file: string;
  results: RunResults & { shard: NonNullable<RunResults['shard']> };
}

const Usage = z.looseObject({
  judge_calls: z.number().int().min(0),
  cached_calls: z.number().int().min(0),
  prompt_tokens: z.number().min(0),
  completion_tokens: z.number().min(0),
  cost_usd: z.number().nullable(),
});

// Only what the merge reads or recomputes from is checked; every other field is carried as is.
const Case = z.looseObject({
  id: z.string(),
  definition_hash: z.string().regex(/^[0-9a-f]{16}$/, 'a 16-hex definition_hash'),
  verdict: z.enum(['pass', 'borderline', 'fail', 'error', 'skipped', 'inconclusive']),
  score: z.number().min(0).max(1),
  gating_violations: z.array(z.string()),
  evaluators: z.array(z.unknown()),
  usage: Usage.optional(),
  // Repeats: what the reports read of them (counts, rates, each answer's verdict).
  repeats: z.number().int().min(1).max(MAX_REPEATS).optional(),
  pass_rate: z.number().min(0).max(1).optional(),
  pass_rate_low: z.number().min(0).max(1).optional(),
  pass_rate_high: z.number().min(0).max(1).optional(),
  answers: z
    .array(
      z.looseObject({
        verdict: z.enum(['pass', 'borderline', 'fail', 'error']),
        score: z.number().min(0).max(1),
      }),
    )
    .max(MAX_REPEATS)
    .optional(),
});

const ShardResults = z.looseObject({
  version: z.literal(1),
  suites: z.array(
    z.looseObject({ path: z.string(), description: z.string().nullable(), cases: z.array(Case) }),
  ),
  rubric: z
    .looseObject({ verdict: z.enum(['pass', 'fail']), score: z.number(), usage: Usage.optional() })
    .nullable(),
  usage: Usage,
  partial: z.boolean(),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  judge: z.object({ model: z.string(), base_url: z.string() }).nullable(),
  judge_stats: z.looseObject({ http_calls: z.number().min(0) }).optional(),
  started_at: z.iso.datetime(),
  duration_ms: z.number().min(0),
  shard: z
    .object({
      index: z.number().int().min(1),
      total: z.number().int().min(1),
      plan_hash: z.string().min(1),
      planned: z.number().int().min(0),
    })
    .optional(),
});

/** Expands the `merge` globs (relative to `cwd`) into files, sorted, each once. */
async function findShardFiles(
  patterns: readonly string[],
  cwd: string,
): Promise<{ files: string[]; errors: string[] }> {
  const files = new Set<string>();
  const errors: string[] = [];
  for (const pattern of patterns) {
    const matches = await glob(pattern, { cwd, absolute: true, onlyFiles: true, expandDirectories: false });
    if (matches.length === 0) errors.push(`merge: no files match '${pattern}' in ${cwd}`);
    for (const m of matches.sort()) files.add(path.normalize(m));
  }
  return { files: [...files], errors };
}

/** Reads one shard results file; a file that is not one is an error naming the file and why. */
function readShardFile(abs: string, cwd: string): ShardFile | { error: string } {
  const rel = path.relative(cwd, abs);
  const file = rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(abs, 'utf8'));
  } catch (err) {
    return { error: `${file}: unreadable shard results file: ${(err as Error).message.split('\n')[0]}` };
  }
  const r = ShardResults.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return { error: `${file}: not a rubric-eval results file (${where}${issue.message})` };
  }
  if (!r.data.shard)
    return {
      error: `${file}: has no \`shard\` block: not a shard's results file (write it with \`shard: i/n\`)`,
    };
  return { file, results: r.data as unknown as ShardFile['results'] };
}

/**
 * Every file the globs match, read; the ones that are not shard results files become errors.
 * `exclude` is the merge's own results file: a re-run whose glob also matches it is not an error.
 */
export async function readShardFiles(
  patterns: readonly string[],
  cwd: string,
  exclude: string | null = null,
): Promise<{ files: ShardFile[]; errors: string[] }> {
  const found = await findShardFiles(patterns, cwd);
  const files: ShardFile[] = [];
  const errors = [...found.errors];
  for (const abs of found.files) {
    if (exclude && abs === path.resolve(cwd, exclude)) continue;
    const r = readShardFile(abs, cwd);
    if ('error' in r) errors.push(r.error);
    else files.push(r);
  }
  return { files, errors };
}
