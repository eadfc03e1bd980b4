// The candidate transport of issue 37, measured by the bench against src/judge/transport.ts:
// undici's `request()` (a response read as one buffer, no web streams) over a keep-alive `Agent`,
// or a `ProxyAgent` where `proxyFor` names a proxy. Everything after the bytes arrive (the size
// cap, decompression, the headers and the buffered `Response` the SDK reads) is shared with ours,
// so the comparison is of the HTTP client alone.
import { Agent, type Dispatcher, ProxyAgent } from 'undici';
import { proxyFor } from '../src/core/proxy-for.js';
import {
  BufferedResponse,
  decode,
  type Fetch,
  headerRecord,
  ResponseHeaders,
} from '../src/judge/transport.js';

const MAX_RESPONSE_BYTES = 32 * 2 ** 20;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

export class UndiciTransport {
  private readonly dispatchers = new Map<string, Dispatcher>();
  private lastInput: string | URL | null = null;
  private lastUrl: URL | null = null;

  constructor(private readonly connections: number) {}

  readonly fetch: Fetch = async (input, init = {}) => {
    if (typeof input !== 'string' && !(input instanceof URL)) throw new TypeError('a URL is expected');
    const url = this.parse(input);
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body as string | Uint8Array | null | undefined;
    const res = await this.dispatcher(url).request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: method as Dispatcher.HttpMethod,
      headers: headerRecord(init.headers),
      body: body ?? undefined,
      signal: init.signal ?? undefined,
    });
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > MAX_RESPONSE_BYTES) {
        res.body.destroy();
        throw new Error(`the answer from ${url.origin} is over ${MAX_RESPONSE_BYTES / 2 ** 20} MiB`);
      }
      chunks.push(chunk);
    }
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const encoding = res.headers['content-encoding'];
    const { body: decoded, decoded: wasDecoded } = raw.length
      ? decode(Array.isArray(encoding) ? encoding[0] : encoding, raw)
      : { body: raw, decoded: false };
    const rawHeaders: string[] = [];
    for (const [name, value] of Object.entries(res.headers))
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) rawHeaders.push(name, v);
    const empty = NULL_BODY_STATUS.has(res.statusCode) || method === 'HEAD';
    return new BufferedResponse(
      res.statusCode,
      '',
      new ResponseHeaders(rawHeaders, wasDecoded),
      empty ? Buffer.alloc(0) : decoded,
      url.href,
    ) as unknown as Response;
  };

  private parse(input: string | URL): URL {
    if (input !== this.lastInput || !this.lastUrl) {
      this.lastUrl = new URL(input);
      this.lastInput = input;
    }
    return this.lastUrl;
  }

  private dispatcher(url: URL): Dispatcher {
    let d = this.dispatchers.get(url.origin);
    if (!d) {
      const proxy = proxyFor(url);
      d = proxy
        ? new ProxyAgent({ uri: proxy, connections: this.connections })
        : new Agent({ connections: this.connections, maxRedirections: 5 });
      this.dispatchers.set(url.origin, d);
    }
    return d;
  }

  close(): void {
    for (const d of this.dispatchers.values()) void d.close();
    this.dispatchers.clear();
  }
}
