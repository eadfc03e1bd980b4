import { excerpt } from '../core/diagnostics.js';
import { caseKey, type RecordBundle } from './record-bundle.js';
import { completeShardSet, shardLabel } from './shard.js';

/** One checked bundle and the artifact it came in. */
export interface NamedBundle {
  artifact: string;
  bundle: RecordBundle;
}

type Sharded = NamedBundle & { bundle: RecordBundle & { shard: NonNullable<RecordBundle['shard']> } };

const label = (b: Sharded) => `${shardLabel(b.bundle.shard)} (${b.artifact})`;
/** The fields every shard of one record run shares: it ran on one commit of one pull request. */
const SHARED = ['repository', 'pr_number', 'head_sha', 'base_sha'] as const;

/**
 * The record run's bundles as one (README "The trusted stage", shards): a single unsharded
 * bundle as it is, or every shard of one plan, each exactly once, agreeing on the pull request
 * and commit, no case answered and no gate reported twice. Anything else is an error naming the
 * artifacts: a missing shard is said, never judged around.
 */
export function mergeRecordBundles(
  parts: readonly NamedBundle[],
): { bundle: RecordBundle } | { errors: string[] } {
  const unsharded = parts.filter((p) => !p.bundle.shard);
  if (parts.length === 1 && unsharded.length === 1) return { bundle: parts[0]!.bundle };
  if (unsharded.length > 0)
    return {
      errors: [
        `the record run uploaded ${parts.length} record bundles, but ${unsharded.map((p) => p.artifact).join(', ')} ${unsharded.length === 1 ? 'is' : 'are'} not a shard's (no \`shard\`): one run records either one bundle or one per shard`,
      ],
    };
  const errors: string[] = [];
  const sharded = parts as readonly Sharded[];
  const ordered = completeShardSet(
    sharded,
    {
      shard: (b) => ({ ...b.bundle.shard, plan_hash: b.bundle.plan_hash }),
      label,
      name: (b) => b.artifact,
      noun: 'record bundles',
    },
    errors,
  );
  if (!ordered) return { errors };
  for (const field of SHARED) {
    const values = new Set(ordered.map((b) => String(b.bundle[field])));
    if (values.size > 1)
      errors.push(
        `the shards' record bundles disagree on ${field}: ${ordered.map((b) => `${label(b)} ${excerpt(String(b.bundle[field]))}`).join(', ')}`,
      );
  }
  errors.push(
    ...twice(ordered, (b) => b.bundle.answers.map((a) => caseKey(a.suite, a.id)), 'an answer for case'),
  );
  errors.push(...twice(ordered, (b) => b.bundle.gates.map((g) => g.command), 'a result for gate'));
  if (errors.length > 0) return { errors: errors.slice(0, 20) };
  const first = ordered[0]!.bundle;
  const problems = shardProblems(ordered);
  return {
    bundle: {
      record: 1,
      repository: first.repository,
      pr_number: first.pr_number,
      head_sha: first.head_sha,
      base_sha: first.base_sha,
      plan_hash: first.plan_hash,
      answers: ordered.flatMap((b) => b.bundle.answers),
      gates: ordered.flatMap((b) => b.bundle.gates),
      ...(problems.length > 0 ? { errors: problems } : {}),
    },
  };
}

/**
 * What stopped the shards' recording, each problem once: invalid suites stop every shard the
 * same way, and are said once; a problem only some shards met names them.
 */
function shardProblems(ordered: readonly Sharded[]): string[] {
  const by = new Map<string, number[]>();
  for (const b of ordered)
    for (const e of new Set(b.bundle.errors ?? [])) by.set(e, [...(by.get(e) ?? []), b.bundle.shard.index]);
  const total = ordered.length;
  return [...by].map(([e, at]) =>
    at.length === total ? e : `${at.map((i) => shardLabel({ index: i, total })).join(', ')}: ${e}`,
  );
}

/** Keys two shards both hold: each named with the shards that hold it. */
function twice(ordered: readonly Sharded[], keys: (b: Sharded) => string[], what: string): string[] {
  const holder = new Map<string, Sharded>();
  const out: string[] = [];
  for (const b of ordered)
    for (const key of new Set(keys(b))) {
      const other = holder.get(key);
      if (other) out.push(`${label(other)} and ${label(b)} both hold ${what} ${excerpt(key)}`);
      else holder.set(key, b);
    }
  return out;
}
