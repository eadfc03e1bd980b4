import { backoffDelay, DEFAULT_RETRY, retryAfterMs } from '../../src/judge/retry.js';
import { estimateCost, priceFor, DEFAULT_PRICES } from '../../src/judge/pricing.js';
import { OPENAI_URL } from '../../src/judge/chat.js';
import { judgeEndpoint, GITHUB_MODELS_URL } from '../../src/pipeline/judge-endpoint.js';
import { engineConfig } from '../helpers/engine.js';

describe('retry timing', () => {
  test('retry-after as seconds, as an HTTP date, and retry-after-ms', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
    expect(
      retryAfterMs(
        { 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 5)).toUTCString() },
        Date.UTC(2030, 0, 1),
      ),
    ).toBe(5000);
    expect(retryAfterMs({})).toBeNull();
  });
  test('backoff grows exponentially with jitter, and never undercuts retry-after', () => {
    const f = { retryable: true, rateLimited: false, retryAfterMs: null, description: '' };
    expect(backoffDelay(0, DEFAULT_RETRY, f, () => 0)).toBe(250);
    expect(backoffDelay(3, DEFAULT_RETRY, f, () => 1)).toBe(4000);
    expect(backoffDelay(10, DEFAULT_RETRY, f, () => 1)).toBe(20_000);
    expect(backoffDelay(0, DEFAULT_RETRY, { ...f, retryAfterMs: 3000 }, () => 1)).toBe(3000);
  });
});

describe('judge endpoint from the inputs: GitHub Models with the token, unless a key is given', () => {
  const cfg = (judge: Partial<ReturnType<typeof engineConfig>['judge']>) => {
    const c = engineConfig('/tmp', null);
    return {
      ...c,
      judge: { ...c.judge, model: null, baseURL: null, apiKey: null, githubToken: null, ...judge },
    };
  };
  test('no key: GitHub Models with the GitHub token and openai/gpt-4.1-mini', () => {
    expect(judgeEndpoint(cfg({ githubToken: 'ghs_x' }))).toMatchObject({
      endpoint: { baseURL: GITHUB_MODELS_URL, apiKey: 'ghs_x', model: 'openai/gpt-4.1-mini' },
    });
  });
  test("a key: OpenAI's API and gpt-4.1-mini", () => {
    expect(judgeEndpoint(cfg({ apiKey: 'sk-x' }))).toMatchObject({
      endpoint: { baseURL: OPENAI_URL, apiKey: 'sk-x', model: 'gpt-4.1-mini' },
    });
  });
  test('neither key nor token: a clear error naming what to set', () => {
    expect(judgeEndpoint(cfg({}))).toEqual({ error: expect.stringContaining('permissions: models: read') });
  });
  test('a custom base URL (Ollama) needs no key', () => {
    expect(judgeEndpoint(cfg({ baseURL: 'http://localhost:11434/v1', model: 'llama3.1' }))).toMatchObject({
      endpoint: { baseURL: 'http://localhost:11434/v1', apiKey: '', model: 'llama3.1' },
    });
  });
});

test('cost estimates price GitHub Models ids and dated ids as their family; unknown models have no estimate', () => {
  expect(priceFor('openai/gpt-4.1-mini', DEFAULT_PRICES)).toEqual({ input: 0.4, output: 1.6 });
  expect(priceFor('gpt-4.1-mini-2025-04-14', DEFAULT_PRICES)).toEqual({ input: 0.4, output: 1.6 });
  expect(estimateCost('gpt-4.1', 1_000_000, 500_000, DEFAULT_PRICES)).toBe(6);
  expect(estimateCost('my-local-llama', 1000, 1000, DEFAULT_PRICES)).toBeNull();
});
