import { type CalibrationResults } from '../core/calibration-results.js';
import { addUsage, emptyUsage } from '../core/results.js';
import { calibrationLine, PLAIN } from '../report/calibration.js';
import { bounded } from '../report/inert.js';
import { canonicalJson } from '../suite/definition-hash.js';
import { shardLabel } from './shard.js';
import { type ShardFile } from './shard-file.js';

/** The shards' calibration as one: what the merge reports, or why it cannot say. */
export interface MergedCalibration {
  /** Absent when no shard measured calibration, or when they disagree (then `errors` says how). */
  calibration?: CalibrationResults;
  errors: string[];
}

const label = (f: ShardFile) => `${shardLabel(f.results.shard)} (${f.file})`;

/** What a shard measured, its own judge calls apart (a shard that found the labels cached made none). */
const measured = (c: CalibrationResults) => {
  const { usage: _usage, ...rest } = c;
  return canonicalJson(rest);
};

/**
 * Every shard measures the same labels with the same judge, so each must report the same
 * calibration: the advisory checks each applied are then the same. Shards that measured
 * something else (another labels file, another base, another floor), or some shards measuring
 * and others not, make the merge an error naming them: which shard's checks gate cannot be told.
 * The judge calls of every shard's calibration are summed.
 */
export function mergeCalibration(files: readonly ShardFile[]): MergedCalibration {
  const ordered = [...files].sort((a, b) => a.results.shard.index - b.results.shard.index);
  const withIt = ordered.filter((f) => f.results.calibration);
  if (withIt.length === 0) return { errors: [] };
  const without = ordered.filter((f) => !f.results.calibration);
  if (without.length > 0)
    return {
      errors: [
        `merge: ${without.map(label).join(', ')} measured no calibration, ${withIt.map(label).join(', ')} did: run every shard with the same \`calibration\` input`,
      ],
    };
  const groups = new Map<string, ShardFile[]>();
  for (const f of withIt) {
    const k = measured(f.results.calibration!);
    groups.set(k, [...(groups.get(k) ?? []), f]);
  }
  if (groups.size > 1) {
    const described = [...groups.values()].map((list) => {
      const c = list[0]!.results.calibration!;
      // A shard's file is not ours: its text is bounded, and the comment shows errors fenced.
      return `${list.map(label).join(', ')}: ${calibrationLine(c, PLAIN)} (labels ${bounded(c.file, 100)} at ${bounded(c.source, 80)})`;
    });
    return {
      errors: [
        `merge: the shards measured calibration differently (${described.join('; ')}): run every shard on the same commit with the same \`calibration\` and \`min-judge-agreement\``,
      ],
    };
  }
  const usage = emptyUsage();
  for (const f of withIt) addUsage(usage, f.results.calibration!.usage);
  return { calibration: { ...withIt[0]!.results.calibration!, usage }, errors: [] };
}
