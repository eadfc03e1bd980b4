import { RubricEvalError } from '../core/errors.js';

// How a GitHub call ends, as the action tells it: cancelled, refused for want of permission, or
// an error in one line. Kept apart from the Octokit client (client.ts) so that a run outside a
// pull request evaluates these without Octokit and its HTTP stack.

/** Is this error GitHub refusing us for want of permission (fork PR, read-only token)? */
export function isPermissionError(err: unknown): boolean {
  const status = (err as { status?: number }).status;
  return status === 403 || status === 404;
}

/** An HTTP error in one line: status and the first line of the message. */
export function describeError(err: unknown): string {
  const status = (err as { status?: number }).status;
  const message = err instanceof Error ? err.message : String(err);
  return status ? `HTTP ${status}: ${message.split('\n')[0]}` : message.split('\n')[0]!;
}

/**
 * Resolves as `work` does, or rejects as soon as `signal` aborts: a wait inside Octokit (a
 * rate-limit pause, a retry backoff) cannot be aborted, so a cancel must not wait for it.
 */
export function untilCancelled<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(cancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The reason a cancel gives, named as fetch names its own: @octokit/request rethrows an
 * `AbortError` as it is and wraps anything else as a 500. Either is retried within the budget,
 * and a retry after a cancel is aborted at once (see timedFetch).
 */
export const cancelledError = () =>
  Object.assign(new RubricEvalError('the run was cancelled'), { name: 'AbortError' });
