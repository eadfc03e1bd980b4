import { cacheSecret, JudgeCache } from '../judge/cache.js';
import { type EndpointConfig } from '../judge/chat.js';
import { type ChatMessage } from '../judge/prompts.js';

/** What a model target's call was, as far as its answer depends on it. */
interface TargetCall {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
}

/**
 * The answers of a repeated case's model target (README "Repeats"), in the judge's cache under a
 * key that holds the repeat index: repeat k of an unchanged run is served from the cache, while
 * repeats 1..N of one run stay N independent calls. Only for targets that only call a model
 * (the request decides the answer's distribution); a CLI target runs the pull request's code and
 * is never cached. Entries are authenticated with the target's own credential, like the judge's.
 */
export class TargetAnswerCache {
  private readonly secret: Buffer;

  constructor(
    private readonly cache: JudgeCache,
    private readonly endpoint: EndpointConfig,
  ) {
    this.secret = cacheSecret({ baseURL: this.origin, apiKey: endpoint.apiKey });
  }

  private get origin(): string {
    return this.endpoint.azure?.endpoint ?? this.endpoint.baseURL;
  }

  private key(call: TargetCall, repeat: number): string {
    return JudgeCache.key({
      baseURL: this.origin,
      model: this.endpoint.azure?.deployment ?? this.endpoint.model,
      messages: call.messages,
      schema: { target_answer: 1, max_tokens: call.maxTokens ?? null },
      temperature: call.temperature ?? null,
      seed: null,
      sample: repeat,
    });
  }

  /** The answer repeat `repeat` got for this call before, with its token counts; undefined if none. */
  get(
    call: TargetCall,
    repeat: number,
  ): { text: string; promptTokens: number; completionTokens: number } | undefined {
    if (this.cache.mode === 'off') return undefined;
    const hit = this.cache.get(this.key(call, repeat), this.secret);
    if (!hit || typeof hit.answer !== 'string') return undefined;
    return { text: hit.answer, promptTokens: hit.prompt_tokens, completionTokens: hit.completion_tokens };
  }

  set(
    call: TargetCall,
    repeat: number,
    answer: { text: string; promptTokens: number; completionTokens: number },
  ): void {
    this.cache.set(
      this.key(call, repeat),
      {
        answer: answer.text,
        model: this.endpoint.model,
        prompt_tokens: answer.promptTokens,
        completion_tokens: answer.completionTokens,
      },
      this.secret,
    );
  }
}
