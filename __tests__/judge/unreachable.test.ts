import { createServer } from 'node:net';
import { runLlmJudge } from '../../src/evaluators/llm-judge.js';
import { unreachableReason } from '../../src/judge/retry.js';
import { CLI_SETTINGS } from '../../src/core/setting-names.js';
import { ctx, makeJudge } from '../helpers/judge.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const freeform = { name: 'quality', weight: 1, rubrics: null, prompt: null };

test('a refused connection is not retried: it errors at once, naming the URL and the model', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/v1`;
  const warnings: string[] = [];
  // The default policy (8 attempts with backoff) would take ~40 s on a retryable failure.
  const judge = makeJudge(url, { retry: undefined, warn: (m) => warnings.push(m), settings: CLI_SETTINGS });
  const started = Date.now();
  const results = await Promise.all([1, 2, 3].map(() => runLlmJudge(freeform, ctx(), judge)));
  expect(Date.now() - started).toBeLessThan(10_000);
  for (const r of results) {
    expect(r.verdict).toBe('error');
    expect(r.error).toContain(`cannot reach ${url} (model gpt-4.1-mini): connection refused (ECONNREFUSED)`);
  }
  // Told once, with the fix in the CLI's own words.
  expect(warnings).toEqual([
    `the judge failed: cannot reach ${url} (model gpt-4.1-mini): connection refused (ECONNREFUSED); is the judge running at ${url}? set --judge-base-url`,
  ]);
  // Once known unreachable, later calls fail without trying again.
  const calls = judge.chat.stats.calls;
  expect((await runLlmJudge(freeform, ctx(), judge)).error).toContain('connection refused');
  expect(judge.chat.stats.calls).toBe(calls);
});

test('unreachable reasons come from the cause chain: refused, DNS, TLS; a dropped connection is not one', () => {
  const wrap = (code: string, message = code) => ({
    message: 'Connection error.',
    cause: { message: 'fetch failed', cause: { code, message } },
  });
  expect(unreachableReason(wrap('ECONNREFUSED'))).toBe('connection refused (ECONNREFUSED)');
  expect(unreachableReason(wrap('ENOTFOUND'))).toBe('no such host (ENOTFOUND)');
  expect(unreachableReason(wrap('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toBe(
    'TLS error (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate)',
  );
  expect(unreachableReason(wrap('ECONNRESET'))).toBeNull();
  expect(unreachableReason(wrap('UND_ERR_SOCKET'))).toBeNull();
});

test('an error re-made from its message alone (another realm) is still known by its code', () => {
  expect(
    unreachableReason({
      message: 'Connection error.',
      cause: { message: 'connect ECONNREFUSED 127.0.0.1:1' },
    }),
  ).toBe('connection refused (ECONNREFUSED)');
  expect(unreachableReason({ message: 'read ECONNRESET' })).toBeNull();
});
