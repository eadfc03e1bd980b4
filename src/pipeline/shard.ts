import { type ShardSpec } from '../config/shard-spec.js';
import { canonicalJson } from '../suite/definition-hash.js';
import { sha256Hex } from '../core/sha256.js';

/** What a shard's results file says about the plan it ran a part of. */
export interface ShardInfo extends ShardSpec {
  plan_hash: string;
  planned: number;
}

export const shardLabel = (s: ShardSpec) => `shard ${s.index}/${s.total}`;

/** How one shard of a set is told apart, and named in errors. */
export interface ShardSetView<T> {
  shard: (item: T) => ShardSpec & { plan_hash: string };
  /** `shard 2/3 (shards/2.json)`. */
  label: (item: T) => string;
  /** Where it came from: a file, an artifact. */
  name: (item: T) => string;
  /** What the set is made of: `shard files`, `record bundles`. */
  noun: string;
}

const unique = (xs: readonly string[]) => [...new Set(xs)];

/**
 * One total, one plan hash, each index 1..n exactly once: the shards of one run, whether results
 * files for a merge or record bundles for the judge stage. Returns them in index order, or null
 * (with the errors added) when they do not form one complete set.
 */
export function completeShardSet<T>(
  items: readonly T[],
  view: ShardSetView<T>,
  errors: string[],
): T[] | null {
  const { shard, label } = view;
  const totals = unique(items.map((f) => String(shard(f).total)));
  if (totals.length > 1) {
    errors.push(`${view.noun} disagree on the number of shards: ${items.map(label).join(', ')}`);
    return null;
  }
  const hashes = unique(items.map((f) => shard(f).plan_hash));
  if (hashes.length > 1) {
    const groups = hashes.map(
      (h) =>
        `${items
          .filter((f) => shard(f).plan_hash === h)
          .map(label)
          .join(', ')} planned ${h}`,
    );
    errors.push(
      `plan hash mismatch: ${groups.join('; ')}: the suites, targets or prompt files changed between the shard jobs; run every shard on the same commit`,
    );
    return null;
  }
  const total = Number(totals[0]);
  const byIndex = new Map<number, T[]>();
  for (const f of items) byIndex.set(shard(f).index, [...(byIndex.get(shard(f).index) ?? []), f]);
  for (const [index, list] of [...byIndex].sort(([a], [b]) => a - b)) {
    if (index > total) errors.push(`${list.map(label).join(', ')}: index beyond the ${total} shards`);
    else if (list.length > 1)
      errors.push(`shard ${index}/${total} given ${list.length} times: ${list.map(view.name).join(', ')}`);
  }
  for (let i = 1; i <= total; i++) if (!byIndex.has(i)) errors.push(`shard ${i}/${total} missing`);
  if (errors.length > 0) return null;
  return Array.from({ length: total }, (_, i) => byIndex.get(i + 1)![0]!);
}

/** Plan order: suite path, then position in the suite. Code-unit order: the same on every machine. */
export function comparePlanOrder(
  a: { path: string; position: number },
  b: { path: string; position: number },
): number {
  return comparePlanPosition(a.path, a.position, b.path, b.position);
}

/** The same order from the parts, for sorting many cases without an object per comparison. */
export function comparePlanPosition(
  pathA: string,
  positionA: number,
  pathB: string,
  positionB: number,
): number {
  if (pathA !== pathB) return pathA < pathB ? -1 : 1;
  return positionA - positionB;
}

/** Round-robin: plan case k (0-based) belongs to shard k mod n + 1. */
export const inShard = (k: number, s: ShardSpec) => k % s.total === s.index - 1;

/** How many of `planned` cases the round-robin deals to shard `index`. */
export function shardSize(planned: number, s: ShardSpec): number {
  return s.index > planned ? 0 : Math.floor((planned - s.index) / s.total) + 1;
}

export interface PlanEntry {
  suite: string;
  id: string;
  definition_hash: string;
}

/** `plan_hash`: over the ordered (suite path, case id, definition_hash) list of the whole plan. */
export function planHash(entries: readonly PlanEntry[]): string {
  const list = entries.map((e) => [e.suite, e.id, e.definition_hash]);
  return sha256Hex(canonicalJson(list), 16);
}
