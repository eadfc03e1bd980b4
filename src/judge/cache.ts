import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { readRegularFile } from '../core/checkout-read.js';
import { writeFileNoFollowAsync } from '../core/safe-write.js';
import path from 'node:path';
import { type SettingNames } from '../core/setting-names.js';
import { sha256Hex } from '../core/sha256.js';

/**
 * The most a cache entry may hold: a judge's answer is a few kilobytes. The folder may be in the
 * checkout, so an entry is read as any file there is: a regular file, no link, bounded.
 */
const MAX_ENTRY_BYTES = 10 * 1024 * 1024;

export type CacheMode = 'readwrite' | 'replay' | 'off';

export interface CachedAnswer {
  /** The validated answer object. */
  answer: unknown;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * What a recorded judge was recorded with (its `meta.json`): the endpoint and model are part of
 * every cache key, so a replay must ask as the recording did. Null when the directory holds none.
 */
export function readRecordingMeta(dir: string): { base_url: string; model: string } | null {
  try {
    const meta = JSON.parse(readRegularFile(path.join(dir, 'meta.json'), MAX_ENTRY_BYTES)) as {
      base_url?: unknown;
      model?: unknown;
    };
    if (typeof meta.base_url === 'string' && typeof meta.model === 'string')
      return { base_url: meta.base_url, model: meta.model };
  } catch {
    /* no recording, or not one */
  }
  return null;
}

/**
 * Content-addressed judge cache: one JSON file per request, keyed by the sha256 of everything
 * that decides the answer (endpoint, model, messages, schema, temperature, seed). Only valid
 * answers are stored. A corrupt file is a miss (and is rewritten), never a crash. `replay` mode
 * reads only: the offline demo's recorded judge.
 *
 * Every entry carries an HMAC keyed by a secret the checkout does not hold (see `cacheSecret`).
 * Where the directory sits in the checkout (`verify`; see `cacheInCheckout`), a pull request can
 * add files to it: an entry whose MAC does not verify is never served (counted in `rejected`,
 * re-judged and rewritten). Outside it (the default on a runner, under RUNNER_TEMP) entries are
 * served as written, so they outlive a judge key that changes every job (GitHub Models' workflow
 * token). Replay is the one exception: it is asked for by name (`--judge-replay`, CLI only),
 * makes no call and is labelled RECORDED wherever its results show.
 */
export class JudgeCache {
  /** Entries found but not authenticated for the judge asking: forged, or another key's. */
  rejected = 0;
  /** Entries this run has stored and not yet written: served from here, awaited by `settle`. */
  private readonly unwritten = new Map<string, { entry: CachedAnswer; write: Promise<void> }>();

  constructor(
    readonly dir: string | null,
    readonly mode: CacheMode = dir ? 'readwrite' : 'off',
    /** Serve only entries whose MAC verifies: the directory is one a pull request can write. */
    readonly verify = true,
  ) {}

  static key(parts: {
    baseURL: string;
    model: string;
    messages: unknown;
    schema: unknown;
    temperature: number | null;
    seed: number | null;
    /** Judge samples after the first; absent for sample 0, whose key is unchanged. */
    sample?: number;
  }): string {
    return sha256Hex(JSON.stringify({ v: 1, ...parts }));
  }

  private file(key: string): string {
    return path.join(this.dir!, key.slice(0, 2), `${key}.json`);
  }

  /**
   * Why a judge with `apiKey` is served nothing of earlier runs from this cache, or null: only a
   * verified cache (in the checkout) read and written with a guessable key.
   */
  guessableKeyWarning(apiKey: string): string | null {
    if (!this.dir || this.mode !== 'readwrite' || !this.verify || !guessableKey(apiKey)) return null;
    const key = apiKey ? `is shorter than ${MIN_CACHE_KEY_CHARS} characters` : 'is empty';
    return `judge cache ${this.dir} is in the checkout and the judge key ${key}: a pull request could guess it and sign entries, so nothing cached by an earlier run is served from it (the judge is asked). Give a judge-api-key of ${MIN_CACHE_KEY_CHARS} characters or more, or keep the cache outside the checkout.`;
  }

  /** One notice for the run when entries were refused, else null. */
  rejectedNotice(display: string, names: Pick<SettingNames, 'judgeApiKey' | 'cacheDir'>): string | null {
    if (this.rejected === 0) return null;
    const n = this.rejected === 1 ? '1 entry' : `${this.rejected} entries`;
    return `judge cache ${display}: ignored ${n} not authenticated for this judge (added to the checkout, or written with other credentials); re-judged. A cache in the checkout lasts across runs only with a stable judge key of 20 characters or more (${names.judgeApiKey}); a cache outside the checkout needs none: ${names.cacheDir}.`;
  }

  /** The entry for `key`, if it exists and (where verified) its MAC verifies under `secret`. */
  get(key: string, secret: Buffer): CachedAnswer | undefined {
    if (!this.dir || this.mode === 'off') return undefined;
    const own = this.unwritten.get(key);
    if (own) return own.entry;
    let data: Partial<CachedAnswer> & { key?: string; mac?: unknown };
    try {
      data = JSON.parse(readRegularFile(this.file(key), MAX_ENTRY_BYTES)) as typeof data;
      if (data.key !== key || data.answer === undefined) throw new Error('corrupt');
    } catch {
      return undefined;
    }
    const entry: CachedAnswer = {
      answer: data.answer,
      model: String(data.model ?? ''),
      prompt_tokens: tokens(data.prompt_tokens),
      completion_tokens: tokens(data.completion_tokens),
    };
    if (this.mode !== 'replay' && this.verify && !macMatches(data.mac, mac(secret, key, entry))) {
      this.rejected++;
      return undefined;
    }
    return entry;
  }

  /**
   * Stores an answer. The file is written in the background (`settle` awaits it): a run's calls
   * do not wait on the cache, and a write that fails costs money on the next run, not correctness
   * on this one.
   */
  set(key: string, value: CachedAnswer, secret: Buffer): void {
    if (!this.dir || this.mode !== 'readwrite') return;
    const entry = { v: 2, key, ...value, mac: mac(secret, key, value) };
    const write = writeFileNoFollowAsync(this.file(key), JSON.stringify(entry, null, 1) + '\n')
      .catch(() => undefined)
      .finally(() => {
        if (this.unwritten.get(key)?.write === write) this.unwritten.delete(key);
      });
    this.unwritten.set(key, { entry: value, write });
  }

  /** Resolves when every entry stored so far is on disk (or has failed to be). */
  async settle(): Promise<void> {
    while (this.unwritten.size > 0) await Promise.all([...this.unwritten.values()].map((u) => u.write));
  }
}

/** Keyless endpoints (a local model) have no secret to share across runs: one per process. */
const processSecret = randomBytes(32);

/**
 * Below this length a key is one a pull request can guess (`ollama`, `x`, `none`, a local
 * model's placeholder): it signs nothing the checkout could not forge, so it signs only for this
 * process, like no key.
 */
const MIN_CACHE_KEY_CHARS = 20;

/** Whether `apiKey` is too short to authenticate cache entries across runs. */
const guessableKey = (apiKey: string) => apiKey.length < MIN_CACHE_KEY_CHARS;

/**
 * The key that authenticates a judge's cache entries: derived from the judge's credential and
 * endpoint, so it lasts as long as the credential (a `judge-api-key` across runs; the workflow
 * token of one job for GitHub Models) and is unknown to whoever can only write files. A guessable
 * key (none, or under MIN_CACHE_KEY_CHARS) gets this process's random secret: a cache in the
 * checkout then serves nothing from an earlier run.
 */
export function cacheSecret(endpoint: { baseURL: string; apiKey: string }): Buffer {
  if (guessableKey(endpoint.apiKey)) return processSecret;
  return createHmac('sha256', endpoint.apiKey)
    .update(`rubric-eval judge cache v2\0${endpoint.baseURL}`)
    .digest();
}

/** Each secret's key object, made once: `createHmac` prepares a raw key anew on every call. */
const keyObjects = new WeakMap<Buffer, KeyObject>();

function mac(secret: Buffer, key: string, e: CachedAnswer): string {
  let keyObject = keyObjects.get(secret);
  if (!keyObject) keyObjects.set(secret, (keyObject = createSecretKey(secret)));
  return createHmac('sha256', keyObject)
    .update(JSON.stringify([key, e.answer, e.model, e.prompt_tokens, e.completion_tokens]))
    .digest('hex');
}

function macMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

function tokens(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}
