import { loadedOpenAI } from './sdk.js';

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
  /** Nothing answers at that address (refused, no such host, TLS rejected): retrying will not help. */
  unreachable?: boolean;
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
  const OpenAI = loadedOpenAI();
  if (OpenAI && err instanceof OpenAI.APIConnectionTimeoutError) {
    return { retryable: true, rateLimited: false, retryAfterMs: null, description: 'timed out' };
  }
  if (OpenAI && err instanceof OpenAI.APIUserAbortError) {
    return { retryable: false, rateLimited: false, retryAfterMs: null, description: 'cancelled' };
  }
  if (OpenAI && err instanceof OpenAI.APIConnectionError) {
    const unreachable = unreachableReason(err);
    if (unreachable)
      return {
        retryable: false,
        unreachable: true,
        rateLimited: false,
        retryAfterMs: null,
        description: unreachable,
      };
    return {
      retryable: true,
      rateLimited: false,
      retryAfterMs: null,
      description: `connection error: ${err.message}`,
    };
  }
  if (OpenAI && err instanceof OpenAI.APIError) {
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

/** Error codes that mean the endpoint is not there, as opposed to a connection dropped mid-call. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)|^EPROTO$/;

/**
 * Why an endpoint cannot be reached, from the error's cause chain; null for a transient failure.
 * The code is read from `code`, else from the message: an error re-made across realms (the SDK
 * wraps what is not its realm's Error) keeps only its message, `connect ECONNREFUSED 127.0.0.1:1`.
 */
export function unreachableReason(err: unknown): string | null {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    depth++
  ) {
    const message = typeof e.message === 'string' ? e.message : '';
    const code =
      typeof e.code === 'string'
        ? e.code
        : (/\b(E[A-Z_]{4,}|ERR_TLS_[A-Z_]+|ERR_SSL_[A-Z_]+|CERT_[A-Z_]+|UNABLE_TO_[A-Z_]+|DEPTH_ZERO_[A-Z_]+|SELF_SIGNED_[A-Z_]+)\b/.exec(
            message,
          )?.[1] ?? '');
    if (UNREACHABLE[code]) return `${UNREACHABLE[code]} (${code})`;
    if (TLS_CODE.test(code)) return `TLS error (${code}${message ? `: ${firstLine(message)}` : ''})`;
    e = e.cause as typeof e;
  }
  return null;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 300);
}
