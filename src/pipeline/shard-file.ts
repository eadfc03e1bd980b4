import path from 'node:path';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { readRegularFile } from '../core/checkout-read.js';
import { MAX_RESULTS_BYTES } from '../baseline/read-results.js';
import { tooDeepPath } from '../core/nesting.js';
import { type Workspace } from '../core/workspace.js';
import { type RunResults } from '../core/results.js';
import { RunResultsSchema } from '../core/results-schema.js';

/** One shard's results file, read and checked for the fields a merge relies on. */
export interface ShardFile {
  /** As given to the user: relative to the working directory when inside it. */
  file: string;
  results: RunResults & { shard: NonNullable<RunResults['shard']> };
}

// A shard's file is input the merge did not write (an artifact any job of the workflow, or a step
// running the PR's code, could have replaced): the whole results model is checked, not just what
// the merge recomputes from, before any of it reaches the comment.
const ShardResults = RunResultsSchema.extend({
  shard: z
    .object({
      index: z.number().int().min(1),
      total: z.number().int().min(1),
      plan_hash: z.string().regex(/^[0-9a-f]{1,64}$/, 'a hex plan_hash'),
      planned: z.number().int().min(0),
    })
    .optional(),
});

/** Results files nest a few levels (composites of composites); a file deeper than this is not one. */
const MAX_RESULTS_DEPTH = 200;

/** Expands the `merge` globs (relative to `cwd`) into files, sorted, each once. */
async function findShardFiles(
  patterns: readonly string[],
  cwd: string,
): Promise<{ files: string[]; errors: string[] }> {
  const files = new Set<string>();
  const errors: string[] = [];
  for (const pattern of patterns) {
    const matches = await glob(pattern, {
      cwd,
      absolute: true,
      onlyFiles: true,
      expandDirectories: false,
      // As for suites (src/suite/discover.ts): a link in the checkout to `/` must not be walked.
      followSymbolicLinks: false,
    });
    if (matches.length === 0) errors.push(`merge: no files match '${pattern}' in ${cwd}`);
    for (const m of matches.sort()) files.add(path.normalize(m));
  }
  return { files: [...files], errors };
}

/**
 * Reads one shard results file; a file that is not one is an error naming the file and why. A
 * file in the workspace is read as the checkout is (inside it after links); one outside it (a
 * download folder) as any file outside a checkout.
 */
function readShardFile(abs: string, ws: Workspace): ShardFile | { error: string } {
  const file = ws.display(abs);
  let raw: unknown;
  try {
    const text = ws.has(abs)
      ? ws.readText(abs, MAX_RESULTS_BYTES, false)
      : readRegularFile(abs, MAX_RESULTS_BYTES, file);
    raw = JSON.parse(text);
  } catch (err) {
    return { error: `${file}: unreadable shard results file: ${(err as Error).message.split('\n')[0]}` };
  }
  const deep = tooDeepPath(raw, MAX_RESULTS_DEPTH);
  if (deep)
    return {
      error: `${file}: not a rubric-eval results file (nested past ${MAX_RESULTS_DEPTH} levels at ${deep.slice(0, 8).join('.')}…)`,
    };
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
  ws: Workspace,
  exclude: string | null = null,
): Promise<{ files: ShardFile[]; errors: string[] }> {
  const cwd = ws.root;
  const found = await findShardFiles(patterns, cwd);
  const files: ShardFile[] = [];
  const errors = [...found.errors];
  for (const abs of found.files) {
    if (exclude && abs === path.resolve(cwd, exclude)) continue;
    const r = readShardFile(abs, ws);
    if ('error' in r) errors.push(r.error);
    else files.push(r);
  }
  return { files, errors };
}
