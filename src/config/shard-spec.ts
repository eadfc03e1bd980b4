import { excerpt } from '../core/diagnostics.js';

/** `shard: i/n`: this run is part i of a plan dealt round-robin into n parts. */
export interface ShardSpec {
  index: number;
  total: number;
}

/** GitHub's own limit on the jobs of one matrix. */
export const MAX_SHARDS = 256;
const SHARD_FORM = `i/n with 1 ≤ i ≤ n ≤ ${MAX_SHARDS}, e.g. 2/4`;

/** Parses `i/n`; anything else is an error that names the accepted form. */
export function parseShard(value: string): ShardSpec | { error: string } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = m ? Number(m[1]) : NaN;
  const total = m ? Number(m[2]) : NaN;
  if (!m || index < 1 || index > total || total > MAX_SHARDS)
    return { error: `shard: must be ${SHARD_FORM} (got '${excerpt(value)}')` };
  return { index, total };
}
