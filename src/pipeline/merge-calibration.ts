import { type CalibrationResults, shownCheck } from '../core/calibration-results.js';
import { addUsage, emptyUsage } from '../core/results.js';
import { bounded } from '../report/inert.js';
import { canonicalJson } from '../suite/definition-hash.js';
import { shardLabel } from './shard.js';
import { type ShardFile } from './shard-file.js';

/** The shards' calibration as one: what the merge reports, or why it cannot say. */
export interface MergedCalibration {
  /** Absent when no shard measured calibration, or when they disagree (then `errors` says how). */
  calibration?: CalibrationResults;
  errors: string[];
  /** The shards measured the same gate with different figures (judge noise): which, and whose are shown. */
  warnings: string[];
}

const label = (f: ShardFile) => `${shardLabel(f.results.shard)} (${f.file})`;

/**
 * What decides the gate, field by field: which checks are below the floor (by suite, case,
 * evaluator and check, not by their κ), what that does, the floor, and which labels were read.
 * Shards that agree on these applied the same advisory checks, whatever their κ. Each field is
 * compared whole (`same`) and shown bounded (`shown`): a shard's file is not ours, and the
 * comment shows errors fenced.
 */
const GATE: Record<
  string,
  { same: (c: CalibrationResults) => string; shown: (c: CalibrationResults) => string }
> = {
  below_floor: {
    same: (c) =>
      canonicalJson(
        c.below_floor
          .map((b) => [b.suite, b.id, b.evaluator ?? [], b.check])
          .sort((x, y) => (canonicalJson(x) < canonicalJson(y) ? -1 : 1)),
      ),
    shown: (c) => {
      const checks = [...c.below_floor]
        .map((b) =>
          bounded(`${b.suite} › ${b.id} › ${(b.evaluator ?? []).join(' › ')} › ${shownCheck(b)}`, 120),
        )
        .sort();
      if (checks.length === 0) return 'none';
      return `${checks.slice(0, 5).join(', ')}${checks.length > 5 ? ` and ${checks.length - 5} more` : ''}`;
    },
  },
  effect: { same: (c) => c.effect, shown: (c) => c.effect },
  floor: { same: (c) => String(c.floor), shown: (c) => (c.floor === null ? 'off' : String(c.floor)) },
  file: { same: (c) => c.file, shown: (c) => bounded(c.file, 100) },
  source: { same: (c) => c.source, shown: (c) => bounded(c.source, 80) },
  labels: { same: (c) => String(c.labels), shown: (c) => String(c.labels) },
};

/** The figures the results model has (a shard's file may carry any other key: never named). */
const FIGURES = ['after_merge', 'after_merge_error', 'below_floor', 'errors', 'overall', 'rows'] as const;

/** The figures whose values differ between the shards, gate aside: judge noise. */
function noisyFields(all: readonly CalibrationResults[]): string[] {
  const first = all[0]!;
  const at = (c: CalibrationResults, k: (typeof FIGURES)[number]) => canonicalJson(c[k] ?? null);
  return FIGURES.filter((k) => all.some((c) => at(c, k) !== at(first, k)));
}

/** `field differs (shard 1/2 (…): value; shard 2/2 (…): value)` for each gate field the shards disagree on. */
function gateDifferences(files: readonly ShardFile[]): string[] {
  return Object.entries(GATE).flatMap(([field, { same, shown }]) => {
    const groups = new Map<string, ShardFile[]>();
    for (const f of files) {
      const v = same(f.results.calibration!);
      groups.set(v, [...(groups.get(v) ?? []), f]);
    }
    if (groups.size < 2) return [];
    const sides = [...groups.values()].map(
      (list) => `${list.map(label).join(', ')}: ${shown(list[0]!.results.calibration!)}`,
    );
    return [`${field} differs (${sides.join('; ')})`];
  });
}

/**
 * Every shard measures the same labels with the same judge, so each must make the same checks
 * advisory. Only what decides that is compared (`GATE`): shards run in parallel judge the labels
 * each on their own, so a transient judge error or a flipped verdict may move a κ without moving
 * the gate; then the merge reports shard 1's figures and says so. Shards whose gate differs
 * (another labels file, base, floor, or other checks below it), or some measuring and others
 * not, make the merge an error naming the field and the shards. Every shard's calibration
 * calls are summed.
 */
export function mergeCalibration(files: readonly ShardFile[]): MergedCalibration {
  const ordered = [...files].sort((a, b) => a.results.shard.index - b.results.shard.index);
  const withIt = ordered.filter((f) => f.results.calibration);
  if (withIt.length === 0) return { errors: [], warnings: [] };
  const without = ordered.filter((f) => !f.results.calibration);
  if (without.length > 0)
    return {
      errors: [
        `merge: ${without.map(label).join(', ')} measured no calibration, ${withIt.map(label).join(', ')} did: run every shard with the same \`calibration\` input`,
      ],
      warnings: [],
    };
  const differences = gateDifferences(withIt);
  if (differences.length > 0)
    return {
      errors: [
        `merge: the shards measured calibration differently: ${differences.join('; ')}: run every shard on the same commit with the same \`calibration\` and \`min-judge-agreement\``,
      ],
      warnings: [],
    };
  const usage = emptyUsage();
  for (const f of withIt) addUsage(usage, f.results.calibration!.usage);
  const calibration: CalibrationResults = { ...withIt[0]!.results.calibration!, usage };
  const noisy = noisyFields(withIt.map((f) => f.results.calibration!));
  if (noisy.length === 0) return { calibration, errors: [], warnings: [] };
  calibration.note = `the shards judged the labels apart and their ${noisy.join(', ')} differ (judge noise or a failed call), not which checks gate: the figures are ${label(withIt[0]!)}'s`;
  return { calibration, errors: [], warnings: [`merge: calibration: ${calibration.note}`] };
}
