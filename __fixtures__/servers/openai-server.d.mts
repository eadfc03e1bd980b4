export interface RequestDescription {
  mode: 'checklist' | 'score_range' | 'markdown' | 'freeform' | 'rubric' | 'chat';
  ids: string[];
  text: string;
}
export interface RecordedRequest {
  index: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  url: string;
  at: number;
}
export type Directive = unknown;
export interface ServerOptions {
  latencyMs?: number;
  respond?: (req: {
    body: any;
    desc: RequestDescription;
    index: number;
    headers: any;
  }) => Directive | Promise<Directive>;
  script?: Directive[];
  chaos?: { seed: number; hangMs?: number; retryAfterSeconds?: number };
  rateLimit?: { perSecond: number; retryAfterSeconds?: number };
  reject?: (body: any) => Directive | undefined;
  keepRequests?: boolean;
  port?: number;
  /** The `/v1/embeddings` vector of a text (default: bagOfWords). */
  embed?: (text: string) => number[];
}
export interface FakeOpenAI {
  url: string;
  origin: string;
  state: {
    requests: RecordedRequest[];
    inFlight: number;
    peakInFlight: number;
    served: number;
    statusCounts: Record<number, number>;
    promptTokens: number;
  };
  push(...directives: Directive[]): void;
  close(): Promise<void>;
}
export function startOpenAIServer(options?: ServerOptions): Promise<FakeOpenAI>;
export function describeRequest(body: unknown): RequestDescription;
export function defaultAnswer(desc: RequestDescription): unknown;
export function seededRandom(seed: number): () => number;
