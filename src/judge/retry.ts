import OpenAI from 'openai';

export interface RetryPolicy {
  /** Total attempts per call, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking for more than this is not waited for. */
  maxRetryAfterMs: number;
}

/**
 * 8 attempts: against an endpoint failing a third of all calls (the chaos test's mix), a call still
 * errors only with probability 0.33^8 ≈ 1e-4; the waits add up to about a minute at worst.
 */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 120_000,
};

export interface Failure {
  retryable: boolean;
  rateLimited: boolean;
  /** What the server asked for (retry-after / retry-after-ms), if anything. */
  retryAfterMs: number | null;
  description: string;
}

function header(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const v = (headers as Record<string, string | undefined>)[name];
  return v ?? null;
}

/** `retry-after-ms`, else `retry-after` as seconds or an HTTP date. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | null {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = header(headers, 'retry-after');
  if (ra === null || ra.trim() === '') return null;
  if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The server's own word on retrying (`x-should-retry: true|false`, as OpenAI's SDK reads it): it
 * knows better than the status code, e.g. a 409 lock that will not clear or a 400 that will.
 */
export function serverSaysRetry(headers: unknown): boolean | null {
  const v = header(headers, 'x-should-retry')?.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : null;
}

/** Which failures are worth another attempt: rate limits, server errors, timeouts, dropped connections. */
export function classifyFailure(err: unknown): Failure {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return { retryable: true, rateLimited: false, retryAfterMs: null, description: 'timed out' };
  }
  if (err instanceof OpenAI.APIUserAbortError) {
    return { retryable: false, rateLimited: false, retryAfterMs: null, description: 'cancelled' };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return {
      retryable: true,
      rateLimited: false,
      retryAfterMs: null,
      description: `connection error: ${err.message}`,
    };
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    const retryable =
      serverSaysRetry(err.headers) ?? (status === 408 || status === 409 || status === 429 || status >= 500);
    return {
      retryable,
      rateLimited: status === 429,
      retryAfterMs: retryAfterMs(err.headers),
      description: `HTTP ${status}: ${firstLine(err.message)}`,
    };
  }
  return {
    retryable: false,
    rateLimited: false,
    retryAfterMs: null,
    description: String((err as Error)?.message ?? err),
  };
}

/**
 * Delay before attempt `attempt + 1`: exponential backoff with full jitter, but never shorter
 * than what the server asked for.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  failure: Failure,
  random = Math.random,
): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = exp / 2 + random() * (exp / 2);
  if (failure.retryAfterMs !== null) return Math.max(failure.retryAfterMs, Math.min(jittered, 1000));
  return jittered;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 300);
}
