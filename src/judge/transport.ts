import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { RubricEvalError } from '../core/errors.js';
import { proxiedFetch } from '../core/proxied-fetch.js';
import { proxyFor } from '../core/proxy-for.js';

/** The `fetch` the `openai` client is given: same signature, a leaner path underneath. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const MAX_REDIRECTS = 5;
/** The most a model call's answer may be (a judge answer is a few KB). */
const MAX_RESPONSE_BYTES = 32 * 2 ** 20;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
// Credentials never follow a redirect to another origin.
const CREDENTIAL_HEADERS = ['authorization', 'api-key', 'cookie', 'proxy-authorization'];

/**
 * A keep-alive `node:http`/`node:https` transport for model calls. The judge sends thousands of
 * small JSON requests; `fetch` (undici) builds web streams, tees and transfers for each of them,
 * which at 10,000 cases cost more CPU and memory than the rest of the engine. Here a request is
 * one write of a buffer and a response is read as one buffer. Proxies follow the runner's
 * `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` by its rules (`proxyFor`); TLS is Node's, with its CA
 * store and `NODE_EXTRA_CA_CERTS`.
 * Anything that is not a plain buffered request (streams, forms) goes to `proxiedFetch`.
 */
export class Transport {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly maxSockets: number) {}

  readonly fetch: Fetch = async (input, init = {}) => {
    const body = init.body;
    const plain = body == null || typeof body === 'string' || body instanceof Uint8Array;
    if (!plain || !(typeof input === 'string' || input instanceof URL)) {
      // Not a buffered call (none the client makes today): the runner's proxy still applies.
      return typeof input === 'string' || input instanceof URL
        ? proxiedFetch(input, init)
        : globalThis.fetch(input, init);
    }
    let url = this.parse(input);
    let method = (init.method ?? 'GET').toUpperCase();
    let payload: string | Uint8Array | undefined = body ?? undefined;
    const headers = headerRecord(init.headers);
    for (let hop = 0; ; hop++) {
      if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
      else delete headers['content-length'];
      const res = await this.send(url, method, headers, payload, init.signal ?? undefined);
      const location = res.headers.location;
      if (!REDIRECT_STATUS.has(res.statusCode ?? 0) || !location || hop >= MAX_REDIRECTS) return res.response;
      const next = new URL(location, url);
      if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
      if (
        res.statusCode === 303 ||
        ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
      ) {
        method = 'GET';
        payload = undefined;
        delete headers['content-type'];
      }
      url = next;
    }
  };

  private lastInput: string | URL | null = null;
  private lastUrl: URL | null = null;
  private lastTarget: Target | null = null;

  /** The URL of a request: the judge asks the same one thousands of times, parsed once (never mutated). */
  private parse(input: string | URL): URL {
    if (input !== this.lastInput || !this.lastUrl) {
      this.lastUrl = new URL(input);
      this.lastInput = input;
      this.lastTarget = null;
    }
    return this.lastUrl;
  }

  /** Where node:http sends a request for `url`: worked out once for the URL every call asks. */
  private target(url: URL): Target {
    if (url !== this.lastUrl) return targetOf(url, this.agentFor(url));
    return (this.lastTarget ??= targetOf(url, this.agentFor(url)));
  }

  /** Closes idle keep-alive sockets so the process can exit. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private send(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; statusCode: number | undefined; headers: http.IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const to = this.target(url);
      // Options rather than the URL: node:http would otherwise convert the URL on every call.
      const req = (to.protocol === 'https:' ? https : http).request({
        protocol: to.protocol,
        hostname: to.hostname,
        port: to.port,
        path: to.path,
        auth: to.auth,
        method,
        headers,
        agent: to.agent,
      });
      const onAbort = () => req.destroy(abortError(signal!));
      const done = () => signal?.removeEventListener('abort', onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => {
        done();
        reject(err);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (c: Buffer) => {
          received += c.length;
          // A target's endpoint comes from a file the PR controls: its answer must not take the memory.
          if (received > MAX_RESPONSE_BYTES) {
            req.destroy(
              new RubricEvalError(
                `the answer from ${url.origin} is over ${MAX_RESPONSE_BYTES / 2 ** 20} MiB`,
              ),
            );
            return;
          }
          chunks.push(c);
        });
        res.on('error', (err) => {
          done();
          reject(err);
        });
        res.on('end', () => {
          done();
          try {
            resolve({
              response: toResponse(res, method, chunks, url),
              statusCode: res.statusCode,
              headers: res.headers,
            });
          } catch (err) {
            reject(err);
          }
        });
      });
      req.end(body);
    });
  }

  private agentFor(url: URL): http.Agent {
    // The proxy decision depends on the origin only (NO_PROXY matches host and port): once each.
    let agent = this.agents.get(url.origin);
    if (!agent) {
      const proxy = proxyFor(url);
      const options = { keepAlive: true, maxSockets: this.maxSockets, scheduling: 'lifo' as const };
      if (!proxy) agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      else if (url.protocol === 'https:') agent = new HttpsProxyAgent(proxy, options);
      else agent = new HttpProxyAgent(proxy, options);
      this.agents.set(url.origin, agent);
    }
    return agent;
  }
}

interface Target {
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  auth: string | undefined;
  agent: http.Agent;
}

/**
 * What node:http's own conversion of a URL gives (`urlToHttpOptions`), for the fields it sends
 * by, and the agent (proxied or not) for the URL's origin.
 */
function targetOf(url: URL, agent: http.Agent): Target {
  const { hostname, username, password } = url;
  return {
    protocol: url.protocol,
    // An IPv6 literal is bracketed in a URL, not in a socket address.
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: url.pathname + url.search,
    auth:
      username || password ? `${decodeURIComponent(username)}:${decodeURIComponent(password)}` : undefined,
    agent,
  };
}

/** The request's headers as node:http takes them (lower-case names), asking for compressed answers. */
export function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (init) {
    const entries =
      init instanceof Headers ? init.entries() : Array.isArray(init) ? init : Object.entries(init);
    for (const [k, v] of entries) if (v !== undefined) out[k.toLowerCase()] = String(v);
  }
  out['accept-encoding'] ??= 'gzip, deflate, br';
  return out;
}

/**
 * The answer's body, decompressed within the same bound as its bytes on the wire: a target's
 * endpoint comes from a file the PR controls, and 32 MiB of gzip can inflate to gigabytes.
 */
export function decode(encoding: string | undefined, raw: Buffer): { body: Buffer; decoded: boolean } {
  const bounded = { maxOutputLength: MAX_RESPONSE_BYTES };
  const inflate = (name: string, fn: () => Buffer) => {
    try {
      return { body: fn(), decoded: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw err;
      throw new RubricEvalError(
        `the answer inflates (${name}) to over ${MAX_RESPONSE_BYTES / 2 ** 20} MiB: refused`,
        { cause: err },
      );
    }
  };
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return inflate('gzip', () => gunzipSync(raw, bounded));
    case 'deflate':
      return inflate('deflate', () => inflateSync(raw, bounded));
    case 'br':
      return inflate('br', () => brotliDecompressSync(raw, bounded));
    default:
      return { body: raw, decoded: false };
  }
}

function toResponse(res: http.IncomingMessage, method: string, chunks: Buffer[], url: URL): Response {
  const status = res.statusCode ?? 502;
  const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const { body, decoded } = raw.length
    ? decode(res.headers['content-encoding'], raw)
    : { body: raw, decoded: false };
  const read = new ResponseHeaders(res.rawHeaders, decoded);
  // The client's debug log (OPENAI_LOG=debug) lists the headers of a `Headers` only: there, the
  // answer gets one, so that a run being debugged shows what the server sent.
  const headers = process.env.OPENAI_LOG === 'debug' ? new Headers([...read]) : read;
  const empty = NULL_BODY_STATUS.has(status) || method === 'HEAD';
  return new BufferedResponse(
    status,
    res.statusMessage ?? '',
    headers,
    empty ? Buffer.alloc(0) : body,
    url.href,
  ) as unknown as Response;
}

/**
 * An answer's headers, read-only, as a `Response`'s are: `get`, `has`, `getSetCookie` and
 * iteration by the `Headers` rules (names lower-case and in order, repeated values joined by ", ",
 * each `set-cookie` apart). Undici's `Headers` validates and converts every name and value it is
 * given and sorts them again when iterated, and the client iterates an answer's headers twice per
 * call; these come from Node's HTTP parser, which has already checked them.
 */
export class ResponseHeaders implements Iterable<[string, string]> {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];
  #sorted: [string, string][] | null = null;

  /** `raw`: name, value, name, value... as Node gives them; `decoded`: the body was decompressed. */
  constructor(raw: readonly string[], decoded: boolean) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = raw[i + 1]!;
      // A decompressed body no longer has the encoding or the length it came with.
      if (decoded && (name === 'content-encoding' || name === 'content-length')) continue;
      if (name === 'set-cookie') this.#cookies.push(value);
      const before = this.#values.get(name);
      this.#values.set(name, before === undefined ? value : `${before}, ${value}`);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  entries(): IterableIterator<[string, string]> {
    // Listed once: the headers never change, and the client iterates them on every call.
    if (!this.#sorted) {
      this.#sorted = [];
      for (const name of [...this.#values.keys()].sort()) {
        if (name === 'set-cookie') for (const c of this.#cookies) this.#sorted.push([name, c]);
        else this.#sorted.push([name, this.#values.get(name)!]);
      }
    }
    return this.#sorted.map((pair): [string, string] => [pair[0], pair[1]]).values();
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(fn: (value: string, name: string, headers: ResponseHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) fn.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * A `Response` whose body is already in memory. Undici's `Response` wraps every body in a web
 * stream (with a transferable controller) only for the client to read it back whole; the `openai`
 * client needs status, headers and `json()`/`text()`, which this serves from the buffer. `body`
 * is null: nothing here streams.
 */
export class BufferedResponse {
  readonly body = null;
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: ResponseHeaders | Headers,
    private readonly buffer: Buffer,
    readonly url: string,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  private consume(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    return this.buffer;
  }

  async text(): Promise<string> {
    return this.consume().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): BufferedResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed');
    return new BufferedResponse(
      this.status,
      this.statusText,
      this.headers, // read-only: shared (the client never changes an answer's headers)
      this.buffer,
      this.url,
    );
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}
