import { z } from 'zod';
import { excerpt } from '../core/diagnostics.js';
import { MAX_REPEATS, parseRepeat, type RepeatSetting } from '../core/repeat-setting.js';

/** The message for a value that is not a repeat setting, naming where it was given. */
const repeatError = (where: string, given: unknown) =>
  `${where}: must be an integer from 1 to ${MAX_REPEATS} or auto (got '${excerpt(String(given))}')`;

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
