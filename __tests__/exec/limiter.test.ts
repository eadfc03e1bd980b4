import { getEventListeners } from 'node:events';
import { AdaptiveLimiter } from '../../src/exec/limiter.js';

describe('AdaptiveLimiter: additive increase, multiplicative decrease', () => {
  test('never more than the limit in flight; waiters are served in order', async () => {
    const l = new AdaptiveLimiter(2);
    const order: number[] = [];
    await l.acquire();
    await l.acquire();
    const third = l.acquire().then(() => order.push(3));
    const fourth = l.acquire().then(() => order.push(4));
    expect(l.inFlight).toBe(2);
    l.release();
    await third;
    l.release();
    await fourth;
    expect(order).toEqual([3, 4]);
    expect(l.peak).toBe(2);
  });
  test('429s halve the limit (once per cooldown), successes grow it back to the maximum', () => {
    const l = new AdaptiveLimiter(16, 1000);
    l.onRateLimited(10_000);
    expect(l.limit).toBe(8);
    l.onRateLimited(10_500); // within the cooldown: one burst of 429s is one signal
    expect(l.limit).toBe(8);
    l.onRateLimited(11_001);
    expect(l.limit).toBe(4);
    for (let i = 0; i < 4; i++) l.onSuccess();
    expect(l.limit).toBe(5);
    for (let i = 0; i < 200; i++) l.onSuccess();
    expect(l.limit).toBe(16);
    const floor = new AdaptiveLimiter(1);
    floor.onRateLimited(0);
    expect(floor.limit).toBe(1);
  });
  test('an abort while waiting rejects and frees the place in the queue', async () => {
    const l = new AdaptiveLimiter(1);
    await l.acquire();
    const ac = new AbortController();
    const waiting = l.acquire(ac.signal);
    ac.abort();
    await expect(waiting).rejects.toThrow();
    l.release();
    await l.acquire();
    expect(l.inFlight).toBe(1);
  });
  test('waiters on one signal share one listener; its abort rejects them all and keeps the others queued', async () => {
    const l = new AdaptiveLimiter(1);
    await l.acquire();
    const run = new AbortController();
    const other = new AbortController();
    const onRun = [l.acquire(run.signal), l.acquire(run.signal), l.acquire(run.signal)];
    const onOther = l.acquire(other.signal);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    run.abort(new Error('stop'));
    for (const w of onRun) await expect(w).rejects.toThrow('stop');
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    l.release();
    await onOther; // the one waiter left is next, not behind the cancelled ones
    expect(l.inFlight).toBe(1);
    // Its listener went with its last waiter: a signal outliving the wait holds nothing.
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  test('a waiter whose signal aborted before its turn came is not given the slot', async () => {
    const l = new AdaptiveLimiter(1);
    await l.acquire();
    const ac = new AbortController();
    // An earlier listener on the same signal frees the slot as the abort runs.
    ac.signal.addEventListener('abort', () => l.release());
    const waiting = l.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(l.inFlight).toBe(0);
  });
});
