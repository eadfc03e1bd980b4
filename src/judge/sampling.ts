/**
 * Judge samples (README "Judge samples"): what makes sample i differ from sample 0, and how samples are
 * combined. Pure: the evaluator layer decides how many samples to take.
 */

import { mulberry32 } from '../core/seeded-random.js';

/** `judge-samples`: a fixed count 1..9, or `auto` (more samples only where the verdict is in doubt). */
export type SamplesSetting = number | 'auto';

export const MAX_FIXED_SAMPLES = 9;
/** `auto` never takes more than this many samples of one evaluator. */
const MAX_AUTO_SAMPLES = 7;
/** Samples after the first are drawn warmer so they can disagree (dropped where the endpoint refuses it). */
export const SAMPLE_TEMPERATURE = 0.7;

/** The most samples one evaluator may take under a setting. */
export function maxSamples(setting: SamplesSetting): number {
  return setting === 'auto' ? MAX_AUTO_SAMPLES : setting;
}

/**
 * The items in the order sample `index` shows them: sample 0 as written (so one sample asks exactly
 * what it always asked), later samples shuffled by a seed derived from the index, against the
 * judge's position bias. A shuffle that happens to keep the written order is rotated by one, so
 * every later sample really shows another order when there is more than one item.
 */
export function sampleOrder<T>(items: readonly T[], index: number): T[] {
  if (index === 0 || items.length < 2) return [...items];
  const random = mulberry32(0x9e3779b1 ^ Math.imul(index, 0x85ebca6b));
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  if (out.every((x, i) => x === items[i])) out.push(out.shift()!);
  return out;
}

/** Votes for one checklist item: satisfied when most samples say so; a tie is not satisfied. */
export function majority(votes: readonly boolean[]): boolean {
  const yes = votes.filter(Boolean).length;
  return yes * 2 > votes.length;
}

/** The median; the lower of the two middle values for an even count (a tie leans to the stricter score). */
export function lowerMedian(values: readonly number[]): number {
  if (values.length === 0) throw new Error('lowerMedian of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** `2/3`: satisfied samples over samples. */
export function formatVotes(votes: readonly boolean[]): string {
  return `${votes.filter(Boolean).length}/${votes.length}`;
}

/** Parses `2/3` back into counts; null for anything else. */
export function parseVotes(votes: string): { yes: number; total: number } | null {
  const m = /^(\d+)\/(\d+)$/.exec(votes);
  if (!m) return null;
  const yes = Number(m[1]);
  const total = Number(m[2]);
  return total > 0 && yes <= total ? { yes, total } : null;
}
