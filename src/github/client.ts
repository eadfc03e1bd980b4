import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { RubricEvalError } from '../core/errors.js';
import { cancelledError } from './call-outcome.js';
import { proxiedFetch } from '../core/proxied-fetch.js';

export type Octokit = ReturnType<typeof getOctokit>;

/** Retries after a 5xx or a timeout: the budget of one GitHub call beyond its first try. */
export const GITHUB_RETRIES = 2;
/** The longest rate-limit wait honoured; GitHub asking for longer ends the call. */
const MAX_RATE_LIMIT_WAIT_S = 60;
/** Backoff base: waits of 0.5 s then 2 s, short enough for a cancel to land within 5 s. */
const RETRY_BASE_MS = 500;

export interface OctokitOptions {
  warn: (m: string) => void;
  /** How long one attempt of one call may take (the `github-timeout` input). */
  timeoutMs: number;
  /** Cancel: aborts the call in flight and is never retried. */
  signal?: AbortSignal;
}

/**
 * Octokit against GITHUB_API_URL (getOctokit reads it). Every call is bounded: each attempt has
 * a timeout (a timed-out attempt is retried like a 5xx, within GITHUB_RETRIES), primary and
 * secondary rate limits are waited out twice at most, and a cancel aborts the call at once.
 */
export function createOctokit(token: string, opts: OctokitOptions): Octokit {
  const boundedFetch = timedFetch(opts.timeoutMs, opts.signal);
  const onLimit =
    (kind: string) =>
    (retryAfter: number, options: { method: string; url: string }, _o: unknown, retryCount: number) => {
      const retrying = retryCount < 2 && retryAfter <= MAX_RATE_LIMIT_WAIT_S && !opts.signal?.aborted;
      opts.warn(
        `GitHub ${kind} on ${options.method} ${options.url}; ${retrying ? `retrying in ${retryAfter} s` : 'giving up'}`,
      );
      return retrying;
    };
  const octokit = getOctokit(
    token,
    {
      // Read now, not when @actions/github was first imported.
      ...(process.env.GITHUB_API_URL ? { baseUrl: process.env.GITHUB_API_URL } : {}),
      request: { fetch: boundedFetch },
      retry: { retries: GITHUB_RETRIES, retryAfterBaseValue: RETRY_BASE_MS },
      throttle: { onRateLimit: onLimit('rate limit'), onSecondaryRateLimit: onLimit('secondary rate limit') },
    },
    retry,
    throttling,
  );
  // The retry plugin counts tries on `options.request`, which every call shares with the
  // defaults: without a fresh one per call, each call's backoff grows with all earlier retries.
  octokit.hook.before('request', (options) => {
    options.request = { ...options.request, retryCount: 0 } as typeof options.request;
  });
  return octokit;
}

/**
 * fetch with a timeout per try and the run's cancel. Plain timers and controllers, not
 * `AbortSignal.any(AbortSignal.timeout())`: a composite signal holds its sources weakly, so the
 * timeout can be collected and never fire (a call then hangs for good). The timer is not
 * cleared when headers arrive, so it bounds reading the body too; unref'd, it never holds the
 * process open.
 */
function timedFetch(timeoutMs: number, cancel: AbortSignal | undefined): typeof fetch {
  const inFlight = new Set<AbortController>();
  cancel?.addEventListener('abort', () => {
    for (const c of inFlight) c.abort(cancelledError());
  });
  return (input, init) => {
    const controller = new AbortController();
    if (cancel?.aborted) controller.abort(cancelledError());
    const outer = init?.signal;
    // A retry of a call whose own signal already fired must not go out again.
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
    inFlight.add(controller);
    const timer = setTimeout(() => {
      inFlight.delete(controller);
      const seconds = timeoutMs / 1000;
      // Named as fetch names its own (`TimeoutError`): wrapped as a 500 and retried.
      controller.abort(
        Object.assign(new RubricEvalError(`GitHub did not answer within ${seconds} s`), {
          name: 'TimeoutError',
        }),
      );
    }, timeoutMs);
    timer.unref();
    const options = { ...init, signal: controller.signal };
    // Octokit passes the URL as a string; a Request (never seen) keeps Node's fetch.
    return typeof input === 'string' || input instanceof URL
      ? proxiedFetch(input, options)
      : fetch(input, options);
  };
}

export interface Repo {
  owner: string;
  repo: string;
}
