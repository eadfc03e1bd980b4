import { type CaseResult, type ShardSummary, type SuiteResult } from '../core/results.js';
import { type AggregateInput } from './aggregate.js';
import { type RunStats } from './context.js';
import { type ShardFile } from './shard-file.js';
import { comparePlanOrder, completeShardSet, planHash, shardLabel, shardSize } from './shard.js';

/** What a merge hands the aggregate stage in place of load..execute. */
export interface MergedRun extends Pick<
  AggregateInput,
  'suites' | 'rubric' | 'errors' | 'warnings' | 'partial' | 'judge'
> {
  /** When the earliest shard started (ms since the epoch), or null when no shard was read. */
  started: number | null;
  shards: ShardSummary[];
  stats: RunStats;
  /** Whether any shard executed (a run stopped by invalid input has no judge stats). */
  executed: boolean;
}

const label = (f: ShardFile) => `${shardLabel(f.results.shard)} (${f.file})`;
const unique = (xs: readonly string[]) => [...new Set(xs)];

/**
 * The merge stage (README "One run across many jobs"): shard results files in, one run out, as the unsharded run
 * would have produced it. Missing, duplicate or mismatched shards, or cases that do not add up
 * to the plan, are errors naming the shard: the run then fails and nothing passes.
 */
export function mergeShards(files: readonly ShardFile[], readErrors: readonly string[] = []): MergedRun {
  const errors = [...readErrors];
  const ordered =
    files.length > 0
      ? completeShardSet(
          files,
          { shard: (f) => f.results.shard, label, name: (f) => f.file, noun: 'shard files' },
          errors,
        )
      : null;
  if (files.length === 0) errors.push('merge: no shard results files to merge');
  const first = ordered?.[0];
  const assembled =
    ordered && errors.length === 0 && !ordered.some((f) => f.results.errors.length > 0)
      ? assembleCases(ordered, errors)
      : { suites: [], partial: files.some((f) => f.results.partial) };
  const starts = files.map((f) => Date.parse(f.results.started_at));
  return {
    suites: errors.length > 0 ? [] : assembled.suites,
    rubric: errors.length > 0 ? null : (first?.results.rubric ?? null),
    errors: unique([...files.flatMap((f) => f.results.errors), ...errors]),
    warnings: unique(files.flatMap((f) => f.results.warnings)),
    partial: assembled.partial,
    judge: first?.results.judge ?? files.find((f) => f.results.judge)?.results.judge ?? null,
    started: starts.length > 0 ? Math.min(...starts) : null,
    shards: [...files].sort((a, b) => a.results.shard.index - b.results.shard.index).map(shardSummary),
    stats: sumStats(files),
    executed: files.some((f) => f.results.judge_stats !== undefined),
  };
}

interface Placed {
  path: string;
  result: CaseResult;
}

/** A shard's cases in plan order: suite path, then position (file order within a suite). */
function planOrdered(f: ShardFile): Placed[] {
  const placed = f.results.suites.flatMap((s) => s.cases.map((result, i) => ({ path: s.path, i, result })));
  return placed
    .sort((a, b) => comparePlanOrder({ path: a.path, position: a.i }, { path: b.path, position: b.i }))
    .map(({ path, result }) => ({ path, result }));
}

/**
 * Deals the shards' cases back into plan order (case k came from shard k mod n + 1) and checks
 * that they are the plan: each shard holds its share, and the rebuilt list hashes to plan_hash.
 */
function assembleCases(
  shards: readonly ShardFile[],
  errors: string[],
): { suites: SuiteResult[]; partial: boolean } {
  const { planned, total } = shards[0]!.results.shard;
  const suitePaths = shards[0]!.results.suites.map((s) => s.path);
  let partial = false;
  for (const f of shards) {
    const got = f.results.suites.reduce((n, s) => n + s.cases.length, 0);
    const share = shardSize(planned, f.results.shard);
    if (f.results.suites.map((s) => s.path).join('\0') !== suitePaths.join('\0'))
      errors.push(`${label(f)} lists other suites than ${label(shards[0]!)}`);
    else if (got < share && f.results.partial) partial = true;
    else if (got !== share)
      errors.push(`${label(f)} holds ${got} cases; its share of the ${planned} planned is ${share}`);
  }
  const lists = shards.map(planOrdered);
  // A cancelled shard leaves gaps the round-robin cannot deal around: order by line instead.
  const rebuilt = partial
    ? lists.flat().sort((a, b) => (a.result.line ?? 0) - (b.result.line ?? 0))
    : Array.from({ length: planned }, (_, k) => lists[k % total]?.[Math.floor(k / total)]).filter(
        (p): p is Placed => p !== undefined,
      );
  if (errors.length === 0 && !partial) checkPlanHash(rebuilt, shards, errors);
  const suites = shards[0]!.results.suites.map((s) => ({
    ...s,
    cases: rebuilt.filter((p) => p.path === s.path).map((p) => p.result),
  }));
  return { suites, partial };
}

function checkPlanHash(rebuilt: readonly Placed[], shards: readonly ShardFile[], errors: string[]): void {
  const entries = rebuilt.map((p) => ({
    suite: p.path,
    id: p.result.id,
    definition_hash: p.result.definition_hash ?? '',
  }));
  if (planHash(entries) === shards[0]!.results.shard.plan_hash) return;
  const seen = new Map<string, string>();
  for (const f of shards)
    for (const p of planOrdered(f)) {
      const key = `${p.path}#${p.result.id}`;
      const where = shardLabel(f.results.shard);
      if (seen.has(key)) errors.push(`case ${key} is in both ${seen.get(key)} and ${where}`);
      else seen.set(key, where);
    }
  errors.push(
    `the shards' cases do not add up to their plan (plan hash ${shards[0]!.results.shard.plan_hash}): a shard file was edited, or written by another version of rubric-eval`,
  );
}

function shardSummary(f: ShardFile): ShardSummary {
  const r = f.results;
  return {
    index: r.shard.index,
    file: f.file,
    cases: r.suites.reduce((n, s) => n + s.cases.length, 0),
    started_at: r.started_at,
    duration_ms: r.duration_ms,
    judge_calls: r.usage.judge_calls,
    http_calls: r.judge_stats?.http_calls ?? 0,
  };
}

function sumStats(files: readonly ShardFile[]): RunStats {
  const s = files.map((f) => f.results.judge_stats);
  const sum = (k: 'http_calls' | 'retries' | 'repairs' | 'rate_limited' | 'timeouts') =>
    s.reduce((n, x) => n + (x?.[k] ?? 0), 0);
  return {
    judgeCalls: sum('http_calls'),
    retries: sum('retries'),
    repairs: sum('repairs'),
    rateLimited: sum('rate_limited'),
    timeouts: sum('timeouts'),
    peakInFlight: Math.max(0, ...s.map((x) => x?.peak_in_flight ?? 0)),
  };
}
