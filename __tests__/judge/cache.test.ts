import { ACTION_SETTINGS, CLI_SETTINGS } from '../../src/core/setting-names.js';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cacheSecret, JudgeCache, readRecordingMeta } from '../../src/judge/cache.js';
import { tmpDir } from '../helpers/judge.js';
import { REPO_ROOT } from '../helpers/paths.js';

const entry = { answer: { score: 0.2 }, model: 'm', prompt_tokens: 10, completion_tokens: 5 };
const ours = cacheSecret({ baseURL: 'https://judge.example/v1', apiKey: 'sk-ours-0000000000000000' });

function fileOf(dir: string): string {
  const sub = readdirSync(dir)[0]!;
  return path.join(dir, sub, readdirSync(path.join(dir, sub))[0]!);
}

/** A cache of its own that stored `entry` under `k1`, written. */
async function written(dir: string): Promise<void> {
  const writer = new JudgeCache(dir);
  writer.set('k1', entry, ours);
  await writer.settle();
}

test('an entry is served only under the key that wrote it; others are refused and counted once each', async () => {
  const dir = tmpDir('re-cache-');
  await written(dir);
  const cache = new JudgeCache(dir);
  expect(cache.get('k1', ours)).toEqual(entry);
  const theirs = cacheSecret({ baseURL: 'https://judge.example/v1', apiKey: 'sk-theirs-000000000000000' });
  expect(cache.get('k1', theirs)).toBeUndefined();
  const elsewhere = cacheSecret({ baseURL: 'https://other.example/v1', apiKey: 'sk-ours-0000000000000000' });
  expect(cache.get('k1', elsewhere)).toBeUndefined();
  expect(cache.rejected).toBe(2);
  expect(cache.rejectedNotice('.rubric-eval-cache', CLI_SETTINGS)).toBe(
    'judge cache .rubric-eval-cache: ignored 2 entries not authenticated for this judge (added to the checkout, or written with other credentials); re-judged. ' +
      'A cache in the checkout lasts across runs only with a stable judge key of 20 characters or more (RUBRIC_EVAL_JUDGE_API_KEY (or OPENAI_API_KEY)); ' +
      'a cache outside the checkout needs none: leave --cache-dir unset for the default, ~/.cache/rubric-eval ($XDG_CACHE_HOME/rubric-eval when set).',
  );
  expect(cache.rejectedNotice('.rubric-eval-cache', ACTION_SETTINGS)).toContain(
    '(`judge-api-key`); a cache outside the checkout needs none: leave `cache-dir` unset for the default, $RUNNER_TEMP/rubric-eval-cache.',
  );
});

test('an edited answer, an entry without a MAC, and a v1 entry are refused', async () => {
  const dir = tmpDir('re-cache-');
  await written(dir);
  const file = fileOf(dir);
  const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  expect(stored).toMatchObject({ v: 2, key: 'k1', mac: expect.stringMatching(/^[0-9a-f]{64}$/) });
  for (const forged of [
    { ...stored, answer: { score: 1 } },
    { ...stored, prompt_tokens: 0 },
    { ...stored, mac: undefined },
    { key: 'k1', ...entry },
  ]) {
    writeFileSync(file, JSON.stringify(forged));
    const cache = new JudgeCache(dir);
    expect(cache.get('k1', ours)).toBeUndefined();
    expect(cache.rejected).toBe(1);
  }
});

test('replay (the recorded demo) reads entries as they are: asked for by name, it makes no call', async () => {
  const dir = tmpDir('re-cache-');
  await written(dir);
  writeFileSync(fileOf(dir), JSON.stringify({ key: 'k1', ...entry }));
  expect(new JudgeCache(dir, 'replay').get('k1', ours)).toEqual(entry);
});

test('an entry is written in the background: served at once by the cache that stored it, on disk after settle', async () => {
  const dir = tmpDir('re-cache-');
  const cache = new JudgeCache(dir);
  cache.set('k1', entry, ours);
  cache.set('k2', { ...entry, answer: { score: 0.9 } }, ours);
  expect(cache.get('k1', ours)).toEqual(entry);
  await cache.settle();
  const fresh = new JudgeCache(dir);
  expect(fresh.get('k1', ours)).toEqual(entry);
  expect(fresh.get('k2', ours)?.answer).toEqual({ score: 0.9 });
  // Nothing but the two entries: no temp file left beside them.
  expect(
    readdirSync(dir)
      .flatMap((sub) => readdirSync(path.join(dir, sub)))
      .sort(),
  ).toEqual(['k1.json', 'k2.json']);
});

test('a write that cannot be made is a miss next run, never an error of this one', async () => {
  const dir = tmpDir('re-cache-');
  writeFileSync(path.join(dir, 'k1'), 'a file where the entry folder goes');
  const cache = new JudgeCache(dir);
  cache.set('k1', entry, ours);
  await expect(cache.settle()).resolves.toBeUndefined();
  expect(new JudgeCache(dir).get('k1', ours)).toBeUndefined();
});

test('a keyless endpoint gets a per-process secret, never one derivable from public facts', () => {
  const a = cacheSecret({ baseURL: 'http://localhost:11434/v1', apiKey: '' });
  const b = cacheSecret({ baseURL: 'http://localhost:11434/v1', apiKey: 'none' });
  expect(a.equals(b)).toBe(true);
  // A key shorter than 20 characters is guessable (`ollama`, `x`): it gets the same per-process secret.
  for (const guessable of ['ollama', 'x', 'sk-1234567890123456'])
    expect(a.equals(cacheSecret({ baseURL: 'http://localhost:11434/v1', apiKey: guessable }))).toBe(true);
  expect(
    a.equals(cacheSecret({ baseURL: 'http://localhost:11434/v1', apiKey: 'sk-x-00000000000000000000' })),
  ).toBe(false);
});

test('a recorded judge names its endpoint and model in meta.json; anything else is no recording', () => {
  const dir = tmpDir('re-recording-');
  expect(readRecordingMeta(dir)).toBeNull();
  writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ base_url: 'https://judge.example/v1' }));
  expect(readRecordingMeta(dir)).toBeNull();
  writeFileSync(path.join(dir, 'meta.json'), '{ not json');
  expect(readRecordingMeta(dir)).toBeNull();
  writeFileSync(
    path.join(dir, 'meta.json'),
    JSON.stringify({ base_url: 'https://judge.example/v1', model: 'm' }),
  );
  expect(readRecordingMeta(dir)).toEqual({ base_url: 'https://judge.example/v1', model: 'm' });
  expect(readRecordingMeta(path.join(REPO_ROOT, 'examples/recorded-judge'))).toMatchObject({
    model: expect.any(String),
  });
});

test('outside the checkout (verify off), an entry written under another key is served: the key may change every job', async () => {
  const dir = tmpDir('re-cache-');
  const job1 = cacheSecret({
    baseURL: 'https://models.github.ai/inference',
    apiKey: 'ghs_job_one_token_0000',
  });
  const job2 = cacheSecret({
    baseURL: 'https://models.github.ai/inference',
    apiKey: 'ghs_job_two_token_0000',
  });
  const job1Cache = new JudgeCache(dir, 'readwrite', false);
  job1Cache.set('k1', entry, job1);
  await job1Cache.settle();
  const outside = new JudgeCache(dir, 'readwrite', false);
  expect(outside.get('k1', job2)).toEqual(entry);
  expect(outside.rejected).toBe(0);
  // The same directory taken for one in the checkout: refused.
  const inCheckout = new JudgeCache(dir);
  expect(inCheckout.get('k1', job2)).toBeUndefined();
  expect(inCheckout.rejected).toBe(1);
});
