/**
 * The root of the errors rubric-eval throws on purpose. Each says in its message what went wrong,
 * in words for the user; `cause` (the standard ES2022 option) keeps the lower-level error it
 * wraps, for a debugger or a caller that needs its details (a judge's HTTP status). Catch a
 * subclass to handle one failure; an error that is not a RubricEvalError is a bug. Each class
 * names itself (`name`), so a stack trace says which one it is, bundled or not.
 */
export class RubricEvalError extends Error {
  override name = 'RubricEvalError';
}

/**
 * An error by its shape, whatever realm made it: Node's fetch gives `DOMException` causes, which
 * are not `instanceof Error` in every context.
 */
export function hasMessage(x: unknown): x is { message: string; cause?: unknown } {
  return typeof x === 'object' && x !== null && typeof (x as { message?: unknown }).message === 'string';
}
