import { getEventListeners } from 'node:events';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { ChatCaller } from '../../src/judge/chat.js';
import { AdaptiveLimiter, CancelledError, sleep } from '../../src/exec/limiter.js';
import { serverSaysRetry } from '../../src/judge/retry.js';

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const caller = (url: string) =>
  new ChatCaller(
    { baseURL: url, apiKey: 'test-key', model: 'm', azure: null, timeoutMs: 5000 },
    new AdaptiveLimiter(2),
    { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5000 },
  );
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('x-should-retry: the server’s word wins over the status code', () => {
  test('read as OpenAI’s SDK reads it', () => {
    expect(serverSaysRetry({ 'x-should-retry': 'true' })).toBe(true);
    expect(serverSaysRetry(new Headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(serverSaysRetry({ 'x-should-retry': 'maybe' })).toBeNull();
    expect(serverSaysRetry({})).toBeNull();
  });

  test('a 500 the server says not to retry is asked once', async () => {
    server = await startOpenAIServer({
      respond: () => ({ status: 500, headers: { 'x-should-retry': 'false' } }),
    });
    await expect(caller(server.url).create(ask)).rejects.toThrow(/HTTP 500/);
    expect(server.state.requests).toHaveLength(1);
  });

  test('a 400 the server says to retry is asked again, and then answers', async () => {
    server = await startOpenAIServer({
      script: [{ status: 400, headers: { 'x-should-retry': 'true' }, body: { error: { message: 'busy' } } }],
      respond: () => ({ content: 'fine' }),
    });
    const c = caller(server.url);
    const r = await c.create(ask);
    expect(r.content).toBe('fine');
    expect(server.state.requests).toHaveLength(2);
    expect(c.stats.retries).toBe(1);
  });

  test('without the header a 400 is not retried and a 503 is', async () => {
    server = await startOpenAIServer({
      script: [{ status: 400, body: { error: { message: 'bad' } } }],
    });
    await expect(caller(server.url).create(ask)).rejects.toThrow(/HTTP 400/);
    expect(server.state.requests).toHaveLength(1);
    await server.close();
    server = await startOpenAIServer({ script: [{ status: 503 }], respond: () => ({ content: 'ok' }) });
    expect((await caller(server.url).create(ask)).content).toBe('ok');
    expect(server.state.requests).toHaveLength(2);
  });
});

describe('cancelling the run', () => {
  test('aborts the calls in flight at once, with one listener on the run’s signal for all of them', async () => {
    server = await startOpenAIServer({ script: [{ hang: true }, { hang: true }] });
    // Two calls in flight and two waiting for a place.
    const run = new AbortController();
    const c = new ChatCaller(
      { baseURL: server.url, apiKey: 'test-key', model: 'm', azure: null, timeoutMs: 60_000 },
      new AdaptiveLimiter(2),
      undefined,
      run.signal,
    );
    const calls = [c.create(ask), c.create(ask), c.create(ask), c.create(ask)];
    while (server.state.requests.length < 2) await sleep(5);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(2); // the caller's and the limiter's
    const started = performance.now();
    run.abort(new CancelledError('run cancelled'));
    for (const call of calls) await expect(call).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(c.stats.calls).toBe(2);
    expect(server.state.requests).toHaveLength(2);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  test('leaves no listener on the run’s signal once its calls are done', async () => {
    server = await startOpenAIServer({ respond: () => ({ content: 'ok' }) });
    const run = new AbortController();
    const c = new ChatCaller(
      { baseURL: server.url, apiKey: 'test-key', model: 'm', azure: null, timeoutMs: 5000 },
      new AdaptiveLimiter(1),
      undefined,
      run.signal,
    );
    await Promise.all([c.create(ask), c.create(ask), c.create(ask)]);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });
});

describe('sleep: a wait an abort cuts short', () => {
  test('waits about as long as asked', async () => {
    const started = performance.now();
    await sleep(60);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
  test('an abort ends the wait at once with the signal’s reason', async () => {
    const ac = new AbortController();
    const reason = new CancelledError('run cancelled');
    const waiting = sleep(60_000, ac.signal);
    setTimeout(() => ac.abort(reason), 20);
    await expect(waiting).rejects.toBe(reason);
  });
  test('an abort with no Error reason is a CancelledError; an aborted signal fails before waiting', async () => {
    const ac = new AbortController();
    ac.abort('stop');
    await expect(sleep(60_000, ac.signal)).rejects.toBeInstanceOf(CancelledError);
  });
});
