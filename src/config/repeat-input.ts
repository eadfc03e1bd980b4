import { z } from 'zod';
import { excerpt } from '../core/diagnostics.js';
import { MAX_REPEATS, type RepeatSetting } from '../evaluators/pass-rate.js';

/** The message for a value that is not a repeat setting, naming where it was given. */
export const repeatError = (where: string, given: unknown) =>
  `${where}: must be an integer from 1 to ${MAX_REPEATS} or auto (got '${excerpt(String(given))}')`;

/** A count 1..20 or `auto`, from an input's text or a suite's YAML value; null for anything else. */
export function parseRepeat(value: unknown): RepeatSetting | null {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (v === 'auto') return 'auto';
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_REPEATS ? n : null;
}

/** The `repeat` input: unset (each suite's `repeat`, else 1), a count 1..20, or `auto`. */
export function repeatInput(name: string) {
  return z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.unknown().transform((v, ctx): RepeatSetting | undefined => {
      if (v === undefined) return undefined;
      const parsed = parseRepeat(v);
      if (parsed === null) {
        ctx.addIssue({ code: 'custom', message: repeatError(name, v) });
        return z.NEVER;
      }
      return parsed;
    }),
  );
}
