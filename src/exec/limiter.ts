import { setTimeout as wait } from 'node:timers/promises';
import { RubricEvalError } from '../core/errors.js';

interface Waiter {
  grant(): void;
  reject(reason: Error): void;
}

/**
 * One limiter for every model call of a run (judge and target alike): at most `limit` calls in
 * flight. On rate limiting the limit halves (at most once per `cooldownMs`), and after `limit`
 * successes in a row it grows by one back to the configured maximum: additive increase,
 * multiplicative decrease, as TCP does, so a run settles just under a provider's quota instead
 * of hammering it with retries.
 */
export class AdaptiveLimiter {
  private current: number;
  private active = 0;
  private successes = 0;
  private lastDecrease = 0;
  private readonly waiters: Waiter[] = [];
  private readonly waitingOn = new Map<AbortSignal, { waiters: Set<Waiter>; onAbort: () => void }>();
  /** Highest number of calls seen in flight at once. */
  peak = 0;

  constructor(
    readonly max: number,
    private readonly cooldownMs = 1000,
  ) {
    if (!Number.isInteger(max) || max < 1)
      throw new RubricEvalError(`concurrency must be a positive integer, got ${max}`);
    this.current = max;
  }

  get limit(): number {
    return this.current;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Waits for a slot. Rejects if `signal` aborts while waiting. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.current && this.waiters.length === 0) {
      this.take();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          if (signal) this.unwatch(signal, waiter);
          // Aborted by an earlier listener of the same signal that freed a slot as it ran.
          if (signal?.aborted) return reject(abortReason(signal));
          this.take();
          resolve();
        },
        reject,
      };
      this.waiters.push(waiter);
      if (signal) this.watch(signal, waiter);
    });
  }

  /**
   * Waiters are cancelled with one listener per signal, there while any waits on it: every model
   * call of a run waits with the run's signal, and a listener each (dozens at once, one added and
   * removed per call) made every add and remove walk the list Node keeps per signal.
   */
  private watch(signal: AbortSignal, waiter: Waiter): void {
    const known = this.waitingOn.get(signal);
    if (known) {
      known.waiters.add(waiter);
      return;
    }
    const waiters = new Set([waiter]);
    const onAbort = () => {
      this.waitingOn.delete(signal);
      for (const w of waiters) {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        w.reject(abortReason(signal));
      }
    };
    this.waitingOn.set(signal, { waiters, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Forgets a waiter that got its slot; the signal's listener goes with its last waiter. */
  private unwatch(signal: AbortSignal, waiter: Waiter): void {
    const known = this.waitingOn.get(signal);
    if (!known) return;
    known.waiters.delete(waiter);
    if (known.waiters.size > 0) return;
    this.waitingOn.delete(signal);
    signal.removeEventListener('abort', known.onAbort);
  }

  release(): void {
    this.active--;
    this.drain();
  }

  /** Runs `fn` inside a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  onSuccess(): void {
    if (this.current >= this.max) return;
    this.successes++;
    if (this.successes >= this.current) {
      this.current++;
      this.successes = 0;
      this.drain();
    }
  }

  onRateLimited(now = Date.now()): void {
    this.successes = 0;
    if (now - this.lastDecrease < this.cooldownMs) return;
    this.lastDecrease = now;
    this.current = Math.max(1, Math.floor(this.current / 2));
  }

  private take(): void {
    this.active++;
    if (this.active > this.peak) this.peak = this.active;
  }

  private drain(): void {
    while (this.active < this.current && this.waiters.length > 0) this.waiters.shift()!.grant();
  }
}

/** Why a signal aborted, as an Error: its reason when it is one, else a CancelledError. */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new CancelledError();
}

export class CancelledError extends RubricEvalError {
  override name = 'CancelledError';
  constructor(message = 'cancelled') {
    super(message);
  }
}

/** A wait that an abort signal cuts short, failing with the signal's reason. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, { signal });
  } catch (err) {
    // Node's AbortError hides the reason; callers tell cancellation apart by it.
    if (signal?.aborted) throw abortReason(signal);
    throw err;
  }
}
