/**
 * The `repeat` setting (README "Repeats") as every layer reads it: the input, a suite's key, the
 * plan. Pure and dependency-free, so the suite loaders and the config can share it.
 */

/** A fixed number of answers per case 1..20, or `auto` (more only while undecided). */
export type RepeatSetting = number | 'auto';

/** The most answers one case takes, fixed or `auto`. */
export const MAX_REPEATS = 20;

/** `min-case-pass-rate` unless set. */
export const DEFAULT_MIN_CASE_PASS_RATE = 0.8;

/** A count 1..20 or `auto`, from an input's text or a suite's YAML value; null for anything else. */
export function parseRepeat(value: unknown): RepeatSetting | null {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (v === 'auto') return 'auto';
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_REPEATS ? n : null;
}

/** How a repeated case is decided: its setting (fixed count or `auto`) and the rate it must reach. */
export interface RepeatRule {
  setting: RepeatSetting;
  minRate: number;
}
