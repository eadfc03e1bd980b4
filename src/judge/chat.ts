import type OpenAI from 'openai';
import { abortReason, type AdaptiveLimiter, sleep } from '../exec/limiter.js';
import { backoffDelay, classifyFailure, DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { type ChatMessage } from './prompts.js';
import { loadedOpenAI, loadOpenAI } from './sdk.js';
import { responsesTools } from './responses-tools.js';
import { RubricEvalError } from '../core/errors.js';

/** Where a model lives. One shape for the judge and for `openai`/`azure` targets. */
export interface EndpointConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  /** promptfoo `similar`: the model `/v1/embeddings` is asked with (the judge's endpoint and key). */
  embeddingModel?: string;
  /** Azure OpenAI: the package's Azure client with endpoint, deployment and api-version. */
  azure: { endpoint: string; deployment: string; apiVersion: string } | null;
  timeoutMs: number;
  /** OpenAI's Responses API instead of Chat Completions (promptfoo's `openai:responses:<model>` targets). */
  api?: 'responses';
}

/** OpenAI's own API: the endpoint of a key given without a base URL (judge or `openai` target). */
export const OPENAI_URL = 'https://api.openai.com/v1';

export type ResponseFormatLevel = 'json_schema' | 'json_object' | 'text';

/**
 * A target's tools as written in its settings (OpenAI's Chat Completions format): sent with the
 * request, and the answer is then the model's message (its tool calls) as well as its text.
 */
export type ToolParams = Partial<Record<'tools' | 'tool_choice' | 'functions' | 'function_call', unknown>>;

export interface ChatRequest {
  messages: ChatMessage[];
  /** A target's tools; absent for the judge. */
  tools?: ToolParams;
  /** The strict structured-output format; omitted for plain chat (targets). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /** Added to the system prompt when the endpoint cannot enforce the schema. */
  shapeHint?: string;
  temperature?: number;
  seed?: number;
  maxTokens?: number;
}

export interface ChatResponse {
  content: string;
  promptTokens: number;
  completionTokens: number;
  finishReason: string | null;
  /** With tools: Chat Completions' message as the endpoint answered it, or the Responses API's output items. */
  message?: unknown;
  output?: unknown[];
}

export interface ChatStats {
  calls: number;
  retries: number;
  rateLimited: number;
  timeouts: number;
  fallbacks: string[];
}

type OptionalParam = 'response_format' | 'temperature' | 'seed' | 'max_tokens';

/** Which optional parameter a 400 complains about, if any. */
function rejectedParameter(err: unknown): OptionalParam | null {
  const OpenAI = loadedOpenAI();
  if (!OpenAI || !(err instanceof OpenAI.APIError) || (err.status !== 400 && err.status !== 422)) return null;
  const param = String((err as { param?: unknown }).param ?? '').toLowerCase();
  const msg = err.message.toLowerCase();
  if (
    param === 'response_format' ||
    msg.includes('response_format') ||
    msg.includes('json_schema') ||
    msg.includes('json_object')
  )
    return 'response_format';
  if (param === 'temperature' || msg.includes('temperature')) return 'temperature';
  if (param === 'seed' || /\bseed\b/.test(msg)) return 'seed';
  if (param === 'max_tokens' || msg.includes('max_tokens')) return 'max_tokens';
  return null;
}

/**
 * One call: Chat Completions, or the Responses API with the same messages as its `input` (the
 * answer is its `output_text`). Usage is counted alike.
 */
async function send(
  client: OpenAI,
  body: OpenAI.ChatCompletionCreateParamsNonStreaming,
  responses: boolean,
  options: { signal: AbortSignal; timeout: number },
): Promise<ChatResponse> {
  const withTools = body.tools !== undefined || body.functions !== undefined;
  if (responses) {
    const { model, messages, temperature, max_tokens, max_completion_tokens } = body;
    const maxOut = max_completion_tokens ?? max_tokens;
    const res = await client.responses.create(
      {
        model,
        input: messages as OpenAI.Responses.ResponseInput,
        ...(typeof temperature === 'number' ? { temperature } : {}),
        ...(typeof maxOut === 'number' ? { max_output_tokens: maxOut } : {}),
        ...responsesTools(body),
      },
      options,
    );
    return {
      content: res.output_text ?? '',
      promptTokens: tokenCount(res.usage?.input_tokens),
      completionTokens: tokenCount(res.usage?.output_tokens),
      finishReason: res.status ?? null,
      ...(withTools ? { output: Array.isArray(res.output) ? res.output : [] } : {}),
    };
  }
  const res = await client.chat.completions.create(body, options);
  const choice = res.choices?.[0];
  return {
    content: choice?.message?.content ?? '',
    promptTokens: tokenCount(res.usage?.prompt_tokens),
    completionTokens: tokenCount(res.usage?.completion_tokens),
    finishReason: choice?.finish_reason ?? null,
    ...(withTools ? { message: choice?.message } : {}),
  };
}

/** The SDK's client over our transport; both are evaluated here, on the first call, not at start-up. */
async function createClient(ep: EndpointConfig, maxSockets: number): Promise<OpenAI> {
  const [{ default: OpenAI, AzureOpenAI }, { Transport }] = await Promise.all([
    loadOpenAI(),
    import(/* webpackMode: "eager" */ './transport.js'),
  ]);
  const fetch = new Transport(maxSockets).fetch;
  // Retries are ours (they share the limiter and honour retry-after); the SDK's are off.
  if (ep.azure) {
    return new AzureOpenAI({
      endpoint: ep.azure.endpoint,
      apiKey: ep.apiKey,
      deployment: ep.azure.deployment,
      apiVersion: ep.azure.apiVersion,
      maxRetries: 0,
      timeout: ep.timeoutMs,
      fetch,
    });
  }
  return new OpenAI({
    baseURL: ep.baseURL,
    apiKey: ep.apiKey || 'none',
    maxRetries: 0,
    timeout: ep.timeoutMs,
    fetch,
  });
}

/**
 * Chat Completions with our transport policy: a global limiter slot per attempt, retries with
 * backoff that honour retry-after, and parameters an endpoint rejects (temperature on reasoning
 * models, json_schema on older servers, max_tokens on newer models) dropped or swapped once and
 * remembered for the rest of the run.
 */
export class ChatCaller {
  /** Made on the first call, when the SDK is first needed. */
  private client: Promise<OpenAI> | undefined;
  private format: ResponseFormatLevel = 'json_schema';
  private sendTemperature = true;
  private sendSeed = true;
  private tokensParam: 'max_tokens' | 'max_completion_tokens' | null = 'max_tokens';
  readonly stats: ChatStats = { calls: 0, retries: 0, rateLimited: 0, timeouts: 0, fallbacks: [] };
  /** Once the endpoint proved unreachable, every later call fails at once with the same reason. */
  private unreachable: ModelCallError | null = null;

  /**
   * The attempts in flight, which the run's cancellation aborts: one listener on the run's signal
   * for all of them while any is in flight, rather than one added and removed per call (each
   * walks Node's list of them).
   */
  private readonly attempts = new Set<AbortController>();
  private readonly abortAttempts = () => {
    for (const attempt of this.attempts) attempt.abort();
  };

  constructor(
    readonly endpoint: EndpointConfig,
    private readonly limiter: AdaptiveLimiter,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
    private readonly signal?: AbortSignal,
    private readonly warn: (message: string) => void = () => {},
    /**
     * `budget-usd`: asked once the limiter grants a slot, right before the request goes out, and
     * charged each call's tokens before its slot is released (so the next call sees the spend).
     */
    private readonly meter: CallMeter | null = null,
  ) {}

  private track(attempt: AbortController): void {
    if (this.attempts.size === 0) this.signal?.addEventListener('abort', this.abortAttempts, { once: true });
    this.attempts.add(attempt);
  }

  private untrack(attempt: AbortController): void {
    this.attempts.delete(attempt);
    if (this.attempts.size === 0) this.signal?.removeEventListener('abort', this.abortAttempts);
  }

  get responseFormat(): ResponseFormatLevel {
    return this.format;
  }

  async create(req: ChatRequest): Promise<ChatResponse> {
    if (this.unreachable) throw this.unreachable;
    let attempt = 0;
    // Each parameter can be given up once; bound the loop by that as well as by retries.
    for (let adjustments = 0; ;) {
      const body = this.body(req);
      await this.limiter.acquire(this.signal);
      if (this.signal?.aborted) {
        // Cancelled as the slot was granted: no call starts after the run's abort.
        this.limiter.release();
        throw abortReason(this.signal);
      }
      if (this.meter && !this.meter.allow()) {
        this.limiter.release();
        throw new SpendRefused();
      }
      // Our own per-attempt timer, so a timeout is known as such whatever error the transport
      // raises for the abort (realms differ on what an AbortError looks like).
      const attemptAbort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attemptAbort.abort();
      }, this.endpoint.timeoutMs);
      this.track(attemptAbort);
      const signal = attemptAbort.signal;
      let failure;
      try {
        this.stats.calls++;
        this.client ??= createClient(this.endpoint, this.limiter.max);
        const options = { signal, timeout: this.endpoint.timeoutMs + 5000 };
        const got = await send(await this.client, body, this.endpoint.api === 'responses', options);
        this.limiter.onSuccess();
        this.meter?.charge(got.promptTokens, got.completionTokens);
        return got;
      } catch (err) {
        if (this.signal?.aborted) throw err;
        const param = timedOut ? null : rejectedParameter(err);
        if (param && adjustments < 6 && this.giveUp(param, body)) {
          adjustments++;
          continue;
        }
        failure = timedOut
          ? {
              retryable: true,
              rateLimited: false,
              retryAfterMs: null,
              description: `timed out after ${this.endpoint.timeoutMs / 1000} s`,
            }
          : classifyFailure(err);
        if (failure.unreachable) {
          this.unreachable = new ModelCallError(
            `cannot reach ${this.endpoint.azure?.endpoint ?? this.endpoint.baseURL} (model ${this.endpoint.model}): ${failure.description}`,
            err,
            true,
          );
          throw this.unreachable;
        }
        if (!failure.retryable || attempt + 1 >= this.retry.maxAttempts) {
          throw new ModelCallError(
            `${this.endpoint.model}: ${failure.description} (after ${attempt + 1} attempt${attempt ? 's' : ''})`,
            err,
          );
        }
        if (timedOut) this.stats.timeouts++;
        if (failure.rateLimited) {
          this.stats.rateLimited++;
          this.limiter.onRateLimited();
        }
        if (failure.retryAfterMs !== null && failure.retryAfterMs > this.retry.maxRetryAfterMs) {
          throw new ModelCallError(
            `${this.endpoint.model}: ${failure.description}; the server asks to wait ${Math.round(failure.retryAfterMs / 1000)} s, more than the ${this.retry.maxRetryAfterMs / 1000} s allowed`,
            err,
          );
        }
      } finally {
        clearTimeout(timer);
        this.untrack(attemptAbort);
        this.limiter.release();
      }
      this.stats.retries++;
      await sleep(backoffDelay(attempt, this.retry, failure), this.signal);
      attempt++;
    }
  }

  /**
   * `/v1/embeddings` on the same endpoint, key, limiter, spend cap and retry budget as the
   * judge's chat calls (promptfoo `similar`): one vector per input, in order.
   */
  async embed(model: string, input: string[]): Promise<{ vectors: number[][]; promptTokens: number }> {
    if (this.unreachable) throw this.unreachable;
    for (let attempt = 0; ; attempt++) {
      await this.limiter.acquire(this.signal);
      if (this.meter && !this.meter.allow()) {
        this.limiter.release();
        throw new SpendRefused();
      }
      const attemptAbort = new AbortController();
      const timer = setTimeout(() => attemptAbort.abort(), this.endpoint.timeoutMs);
      this.track(attemptAbort);
      let failure;
      try {
        this.stats.calls++;
        this.client ??= createClient(this.endpoint, this.limiter.max);
        const res = await (
          await this.client
        ).embeddings.create(
          // As numbers: the SDK's default (base64) would read an endpoint that answers numbers anyway
          // (Ollama's, for one) as raw bytes, and every similarity would be noise.
          { model, input, encoding_format: 'float' },
          { signal: attemptAbort.signal, timeout: this.endpoint.timeoutMs + 5000 },
        );
        this.limiter.onSuccess();
        const promptTokens = tokenCount(res.usage?.prompt_tokens);
        const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
        if (vectors.length !== input.length || vectors.some((v) => !Array.isArray(v) || v.length === 0))
          throw new ModelCallError(
            `${model}: the endpoint answered ${vectors.length} embeddings for ${input.length} texts`,
            null,
          );
        return { vectors, promptTokens };
      } catch (err) {
        if (this.signal?.aborted || err instanceof ModelCallError) throw err;
        failure = classifyFailure(err);
        if (failure.unreachable || !failure.retryable || attempt + 1 >= this.retry.maxAttempts)
          throw new ModelCallError(
            `${model} embeddings at ${this.endpoint.baseURL}: ${failure.description} (after ${attempt + 1} attempt${attempt ? 's' : ''})`,
            err,
            failure.unreachable,
          );
        if (failure.rateLimited) this.limiter.onRateLimited();
      } finally {
        clearTimeout(timer);
        this.untrack(attemptAbort);
        this.limiter.release();
      }
      this.stats.retries++;
      await sleep(backoffDelay(attempt, this.retry, failure), this.signal);
    }
  }

  private body(req: ChatRequest): OpenAI.ChatCompletionCreateParamsNonStreaming {
    let messages = req.messages;
    const body: Record<string, unknown> = { model: this.endpoint.azure?.deployment ?? this.endpoint.model };
    if (req.jsonSchema) {
      if (this.format === 'json_schema') {
        body.response_format = {
          type: 'json_schema',
          json_schema: { name: req.jsonSchema.name, strict: true, schema: req.jsonSchema.schema },
        };
      } else {
        if (this.format === 'json_object') body.response_format = { type: 'json_object' };
        // Without schema enforcement the model must be told the shape (json_object also requires the word JSON).
        messages = withShapeHint(messages, req.shapeHint ?? '');
      }
    }
    body.messages = messages;
    if (req.tools) Object.assign(body, req.tools);
    if (req.temperature !== undefined && this.sendTemperature) body.temperature = req.temperature;
    if (req.seed !== undefined && this.sendSeed) body.seed = req.seed;
    if (req.maxTokens !== undefined && this.tokensParam) body[this.tokensParam] = req.maxTokens;
    return body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
  }

  /** Drops or swaps a rejected parameter; false when there is nothing left to give up. */
  private giveUp(param: OptionalParam, body: Record<string, unknown> | object): boolean {
    const sent = body as Record<string, unknown>;
    let change: string | null = null;
    if (param === 'response_format' && sent.response_format !== undefined) {
      const was = this.format;
      if (was === 'json_schema') this.format = 'json_object';
      else if (was === 'json_object') this.format = 'text';
      if (this.format !== was) change = `response_format ${was} → ${this.format}`;
    } else if (param === 'temperature' && sent.temperature !== undefined) {
      this.sendTemperature = false;
      change = 'temperature dropped';
    } else if (param === 'seed' && sent.seed !== undefined) {
      this.sendSeed = false;
      change = 'seed dropped';
    } else if (param === 'max_tokens') {
      if (sent.max_tokens !== undefined) this.tokensParam = 'max_completion_tokens';
      else if (sent.max_completion_tokens !== undefined) this.tokensParam = null;
      else return false;
      change = `token limit sent as ${this.tokensParam ?? 'nothing'}`;
    }
    if (!change) return false;
    if (!this.stats.fallbacks.includes(change)) {
      this.stats.fallbacks.push(change);
      this.warn(
        `${this.endpoint.model}: the endpoint rejected a parameter; ${change} for the rest of the run`,
      );
    }
    return true;
  }
}

/** A token count from the endpoint, or 0: a `usage` that is not a count is treated as absent. */
function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}

function withShapeHint(messages: ChatMessage[], hint: string): ChatMessage[] {
  const line = `Respond with only one JSON object, no prose and no code fence, of this shape: ${hint}`;
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n${line}` }, ...rest];
  return [{ role: 'system', content: line }, ...messages];
}

/** What a spend cap needs of each call: may it go out, and what did it use. */
export interface CallMeter {
  allow(): boolean;
  charge(promptTokens: number, completionTokens: number): void;
}

/** The spend cap (`budget-usd`) was reached before this call could go out: it was never made. */
export class SpendRefused extends RubricEvalError {
  override name = 'SpendRefused';
  constructor() {
    super('budget-usd reached: no more judge calls this run');
  }
}

/** A model call failed for good (after its retries); `cause` is the client's error. */
export class ModelCallError extends RubricEvalError {
  override name = 'ModelCallError';
  constructor(
    message: string,
    cause: unknown,
    /** Nothing answers at the endpoint's address: a setting to fix, not a hiccup. */
    readonly unreachable = false,
  ) {
    super(message, { cause });
  }
}
