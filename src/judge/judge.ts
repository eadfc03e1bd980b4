import { type z } from 'zod';
import { emptyUsage } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { ACTION_SETTINGS, judgeFix, type SettingNames } from '../core/setting-names.js';
import { parseJsonAnswer } from './answer-json.js';
import { cacheSecret, JudgeCache } from './cache.js';
import { ChatCaller, type EndpointConfig, ModelCallError, SpendRefused } from './chat.js';
import { type AdaptiveLimiter } from '../exec/limiter.js';
import { estimateCost, type PriceTable } from './pricing.js';
import { type ChatMessage, type JudgePrompt } from './prompts.js';
import { type RetryPolicy } from './retry.js';
import { loadedOpenAI, loadOpenAI } from './sdk.js';
import { SAMPLE_TEMPERATURE, type SamplesSetting } from './sampling.js';
import { type Validated } from './schemas.js';
import { RubricEvalError } from '../core/errors.js';

export interface JudgeOptions {
  limiter: AdaptiveLimiter;
  cache: JudgeCache;
  retry?: RetryPolicy;
  /** Re-asks with the validation error appended before giving up. */
  maxRepairs?: number;
  temperature?: number;
  seed?: number;
  maxTokens?: number;
  prices: PriceTable;
  signal?: AbortSignal;
  warn?: (message: string) => void;
  /** How the user sets the judge's URL and key, for the fix told with the first failure. */
  settings?: SettingNames;
  /** `judge-samples`: read by the evaluators, which ask for sample 0, 1, ... of a request. */
  samples?: SamplesSetting;
  /** `budget-usd`: asked before each call (a refused call is an error starting `budget-usd reached`), told each call's cost. */
  spend?: { allow(): boolean; add(usd: number | null): void };
}

export interface JudgeRequest<T> {
  prompt: JudgePrompt;
  schemaName: string;
  wireSchema: z.ZodType;
  validate(data: unknown): Validated<T>;
}

export interface JudgeAnswer<T> {
  value: T;
  usage: Usage;
  warnings: string[];
  cached: boolean;
}

/** The judge could not produce a valid verdict: the evaluator's result is `error`, never a pass. */
export class JudgeError extends RubricEvalError {
  override name = 'JudgeError';
  constructor(
    message: string,
    readonly usage: Usage,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface JudgeStats {
  repairs: number;
}

/**
 * One judge for a run: cache first, then one call per request when the answer is valid; an
 * invalid answer (unparsable, wrong shape, out of range, missing ids) is re-asked with the
 * validation error, up to `maxRepairs` times.
 */
export class Judge {
  readonly chat: ChatCaller;
  readonly stats: JudgeStats = { repairs: 0 };
  private readonly maxRepairs: number;
  private readonly temperature: number;
  private readonly seed: number;
  private toldFailure = false;
  /** Authenticates this judge's cache entries: a cache in the checkout cannot forge a verdict. */
  private readonly cacheKey: Buffer;

  constructor(
    readonly endpoint: EndpointConfig,
    private readonly options: JudgeOptions,
  ) {
    const spend = options.spend;
    this.chat = new ChatCaller(
      endpoint,
      options.limiter,
      options.retry,
      options.signal,
      options.warn,
      spend
        ? {
            allow: () => spend.allow(),
            charge: (p: number, c: number) => spend.add(estimateCost(this.model, p, c, options.prices)),
          }
        : null,
    );
    this.maxRepairs = options.maxRepairs ?? 2;
    this.temperature = options.temperature ?? 0;
    this.seed = options.seed ?? 42;
    this.cacheKey = cacheSecret({
      baseURL: endpoint.azure?.endpoint ?? endpoint.baseURL,
      apiKey: endpoint.apiKey,
    });
    const guessable = options.cache.guessableKeyWarning(endpoint.apiKey);
    if (guessable) options.warn?.(guessable);
  }

  /** The run's first failed judge call is told once, with what to fix when that is known. */
  private tellFirstFailure(err: Error): void {
    if (this.toldFailure || this.options.signal?.aborted) return;
    this.toldFailure = true;
    const cause = err instanceof ModelCallError ? err.cause : null;
    const OpenAI = loadedOpenAI();
    const status = OpenAI && cause instanceof OpenAI.APIError ? (cause.status ?? null) : null;
    const url = this.endpoint.azure?.endpoint ?? this.endpoint.baseURL;
    const fix = judgeFix(
      { unreachable: err instanceof ModelCallError && err.unreachable, status },
      url,
      this.options.settings ?? ACTION_SETTINGS,
    );
    this.options.warn?.(`the judge failed: ${err.message}${fix ? `; ${fix}` : ''}`);
  }

  get samples(): SamplesSetting {
    return this.options.samples ?? 1;
  }

  get model(): string {
    return this.endpoint.azure?.deployment ?? this.endpoint.model;
  }

  /**
   * `sample` > 0 asks the same request again, warmer and with another seed, cached under its own
   * index; sample 0 is exactly the one call made without samples.
   */
  async judge<T>(req: JudgeRequest<T>, sample = 0): Promise<JudgeAnswer<T>> {
    const schema = wireJsonSchema(req.wireSchema, req.schemaName, (await loadOpenAI()).zodResponseFormat);
    const temperature = sample > 0 ? SAMPLE_TEMPERATURE : this.temperature;
    const seed = this.seed + sample;
    // The key (a hash of the whole prompt) is only worth computing when there is a cache.
    const key =
      this.options.cache.mode === 'off'
        ? ''
        : JudgeCache.key({
            baseURL: this.endpoint.azure?.endpoint ?? this.endpoint.baseURL,
            model: this.model,
            messages: req.prompt.messages,
            schema,
            temperature,
            seed,
            sample: sample > 0 ? sample : undefined,
          });
    const usage = emptyUsage();
    const hit = this.options.cache.get(key, this.cacheKey);
    if (hit) {
      const v = req.validate(hit.answer);
      if (v.ok) {
        usage.cached_calls = 1;
        return { value: v.value, usage, warnings: v.warnings, cached: true };
      }
    }
    if (this.options.cache.mode === 'replay') {
      throw new JudgeError(
        'no recorded judge answer for this prompt (replay mode makes no calls; re-record the demo with `npm run demo:record`)',
        usage,
      );
    }

    const messages: ChatMessage[] = [...req.prompt.messages];
    let lastError = '';
    for (let round = 0; round <= this.maxRepairs; round++) {
      const res = await this.chat
        .create({
          messages,
          jsonSchema: { name: req.schemaName, schema },
          shapeHint: req.prompt.shapeHint,
          temperature,
          seed,
          maxTokens: this.options.maxTokens ?? 4096,
        })
        .catch((err: Error) => {
          // Refused by the spend cap: not a failure of the judge (the case is skipped, not errored).
          if (err instanceof SpendRefused) throw new JudgeError(err.message, this.finish(usage));
          this.tellFirstFailure(err);
          throw new JudgeError(`judge call failed: ${err.message}`, this.finish(usage), { cause: err });
        });
      usage.judge_calls++;
      usage.prompt_tokens += res.promptTokens;
      usage.completion_tokens += res.completionTokens;
      const parsed = parseJsonAnswer(res.content);
      const v: Validated<T> = parsed.ok ? req.validate(parsed.value) : { ok: false, error: parsed.error };
      if (v.ok) {
        this.options.cache.set(
          key,
          {
            answer: parsed.ok ? parsed.value : null,
            model: this.model,
            prompt_tokens: res.promptTokens,
            completion_tokens: res.completionTokens,
          },
          this.cacheKey,
        );
        return { value: v.value, usage: this.finish(usage), warnings: v.warnings, cached: false };
      }
      lastError =
        res.finishReason === 'length' ? `${v.error} (the answer was cut off at the token limit)` : v.error;
      if (round < this.maxRepairs) {
        this.stats.repairs++;
        messages.push(
          { role: 'assistant', content: res.content.slice(0, 4000) },
          {
            role: 'user',
            content: `That answer is invalid: ${lastError}. Reply again with only the corrected JSON object.`,
          },
        );
      }
    }
    throw new JudgeError(
      `judge answer invalid after ${this.maxRepairs} repair${this.maxRepairs === 1 ? '' : 's'}: ${lastError}`,
      this.finish(usage),
    );
  }

  /**
   * Embedding vectors of `texts` (promptfoo `similar`), from the judge's endpoint with its key,
   * each text cached like a judge answer (and authenticated the same way); one call for the rest.
   */
  async embed(texts: readonly string[]): Promise<{ vectors: number[][]; usage: Usage }> {
    const usage = emptyUsage();
    const model = this.endpoint.embeddingModel ?? 'text-embedding-3-small';
    if (this.endpoint.azure)
      throw new JudgeError(
        'embeddings are asked of an OpenAI-compatible judge endpoint; an Azure judge has none configured',
        usage,
      );
    const baseURL = this.endpoint.baseURL;
    const keys = texts.map((t) =>
      this.options.cache.mode === 'off'
        ? ''
        : JudgeCache.key({
            baseURL,
            model,
            messages: [{ role: 'user', content: t }],
            schema: 'embedding',
            temperature: null,
            seed: null,
          }),
    );
    const vectors: (number[] | null)[] = keys.map((k) => {
      const v = this.options.cache.get(k, this.cacheKey)?.answer;
      return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number') ? v : null;
    });
    usage.cached_calls = vectors.filter((v) => v !== null).length > 0 ? 1 : 0;
    const missing = vectors.flatMap((v, i) => (v === null ? [i] : []));
    if (missing.length > 0) {
      if (this.options.cache.mode === 'replay')
        throw new JudgeError('no recorded embedding for this text (replay mode makes no calls)', usage);
      const r = await this.chat
        .embed(
          model,
          missing.map((i) => texts[i]!),
        )
        .catch((err: Error) => {
          if (err instanceof SpendRefused) throw new JudgeError(err.message, usage);
          this.tellFirstFailure(err);
          throw new JudgeError(`embedding call failed: ${err.message}`, usage, { cause: err });
        });
      usage.judge_calls = 1;
      usage.prompt_tokens = r.promptTokens;
      usage.cost_usd = estimateCost(model, r.promptTokens, 0, this.options.prices);
      this.options.spend?.add(usage.cost_usd);
      missing.forEach((i, k) => {
        vectors[i] = r.vectors[k]!;
        this.options.cache.set(
          keys[i]!,
          { answer: r.vectors[k]!, model, prompt_tokens: 0, completion_tokens: 0 },
          this.cacheKey,
        );
      });
    } else usage.cost_usd = 0;
    return { vectors: vectors as number[][], usage };
  }

  private finish(usage: Usage): Usage {
    usage.cost_usd = estimateCost(
      this.model,
      usage.prompt_tokens,
      usage.completion_tokens,
      this.options.prices,
    );
    return usage;
  }
}

/** JSON Schema of a wire schema, converted once per schema object (schemas are shared per id list). */
const wireCache = new WeakMap<z.ZodType, Record<string, unknown>>();
function wireJsonSchema(
  schema: z.ZodType,
  name: string,
  zodResponseFormat: typeof import('openai/helpers/zod').zodResponseFormat,
): Record<string, unknown> {
  let json = wireCache.get(schema);
  if (!json) {
    json = zodResponseFormat(schema as never, name).json_schema.schema as Record<string, unknown>;
    wireCache.set(schema, json);
  }
  return json;
}
