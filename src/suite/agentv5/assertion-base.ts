import { type PathSegment } from '../../core/yaml-source.js';
import { type AssertionContext, type Base } from './assertion-context.js';

/**
 * What the three assertion mappers (tests-assertions.ts, assertion-checks.ts,
 * promptfoo-assertions.ts) read the same way: an error at a key of the assertion, a numeric key
 * such as `threshold`, and negation (a `not-` type, `negate: true`). Imports none of them.
 */

/** Reports an error at a path of the assertion, for the test; undefined, so a mapper can return it. */
export function reportAt(ctx: AssertionContext, at: PathSegment[], rule: string, message: string): undefined {
  ctx.sink.error(ctx.doc.locate(at), rule, message, ctx.subject);
  return undefined;
}

/**
 * A number written at `at`: `fallback` when absent; `unit` takes one from 0 to 1, `finite` any
 * finite number. Anything else is reported (rule `threshold`, the message given): undefined.
 */
export function numberAt<F extends number | null>(
  value: unknown,
  at: PathSegment[],
  ctx: AssertionContext,
  rule: { fallback: F; range: 'unit' | 'finite'; message: string },
): number | F | undefined {
  if (value === undefined) return rule.fallback;
  const ok =
    typeof value === 'number' && (rule.range === 'unit' ? !(value < 0 || value > 1) : Number.isFinite(value));
  return ok ? value : reportAt(ctx, at, 'threshold', rule.message);
}

/**
 * `not-<type>`: the type it negates, and that it is negated. A type whose own name starts with
 * `not-` (`isOwnName`, e.g. AgentV 5's `not-skill-used`) is kept whole.
 */
export function splitNot(
  written: string,
  isOwnName: (type: string) => boolean,
): { type: string; notPrefixed: boolean } {
  const notPrefixed = written.startsWith('not-') && !isOwnName(written);
  return { type: notPrefixed ? written.slice('not-'.length) : written, notPrefixed };
}

/** The base without its negation, for the kinds that negate in their own way; whether it was negated. */
export function withoutNegation(base: Base): { negated: boolean; rest: Omit<Base, 'negate'> } {
  const { negate, ...rest } = base;
  return { negated: negate === true, rest };
}
