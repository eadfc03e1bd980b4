import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type CacheMode = 'readwrite' | 'replay' | 'off';

export interface CachedAnswer {
  /** The validated answer object. */
  answer: unknown;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * Content-addressed judge cache: one JSON file per request, keyed by the sha256 of everything
 * that decides the answer (endpoint, model, messages, schema, temperature, seed). Only valid
 * answers are stored. A corrupt file is a miss (and is rewritten), never a crash. `replay` mode
 * reads only: the offline demo's recorded judge.
 */
export class JudgeCache {
  hits = 0;
  misses = 0;

  constructor(
    readonly dir: string | null,
    readonly mode: CacheMode = dir ? 'readwrite' : 'off',
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
    return createHash('sha256')
      .update(JSON.stringify({ v: 1, ...parts }))
      .digest('hex');
  }

  private file(key: string): string {
    return path.join(this.dir!, key.slice(0, 2), `${key}.json`);
  }

  get(key: string): CachedAnswer | undefined {
    if (!this.dir || this.mode === 'off') return undefined;
    try {
      const data = JSON.parse(readFileSync(this.file(key), 'utf8')) as Partial<CachedAnswer> & {
        key?: string;
      };
      if (data.key !== key || data.answer === undefined) throw new Error('corrupt');
      this.hits++;
      return {
        answer: data.answer,
        model: String(data.model ?? ''),
        prompt_tokens: Number(data.prompt_tokens ?? 0),
        completion_tokens: Number(data.completion_tokens ?? 0),
      };
    } catch {
      this.misses++;
      return undefined;
    }
  }

  set(key: string, value: CachedAnswer): void {
    if (!this.dir || this.mode !== 'readwrite') return;
    const file = this.file(key);
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, ...value }, null, 1) + '\n');
      renameSync(tmp, file);
    } catch {
      // A cache that cannot be written costs money on the next run, not correctness on this one.
    }
  }
}
