import { type ShardSpec } from '../config/shard-spec.js';
import { canonicalJson } from '../suite/definition-hash.js';
import { sha256Hex } from '../core/sha256.js';

/** What a shard's results file says about the plan it ran a part of. */
export interface ShardInfo extends ShardSpec {
  plan_hash: string;
  planned: number;
}

export const shardLabel = (s: ShardSpec) => `shard ${s.index}/${s.total}`;

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
