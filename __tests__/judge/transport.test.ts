import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { ChatCaller } from '../../src/judge/chat.js';
import { AdaptiveLimiter } from '../../src/exec/limiter.js';
import { ResponseHeaders, Transport } from '../../src/judge/transport.js';
import { runCli } from '../helpers/cli.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { connectProxy } from '../helpers/proxy.js';

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

/** A loopback HTTP server whose handler the test scripts. */
async function scriptedServer(
  handler: http.RequestListener,
): Promise<{ url: string; sockets: () => number }> {
  const server = http.createServer(handler);
  let open = 0;
  server.on('connection', (s) => {
    open++;
    s.on('close', () => open--);
  });
  const port = await listen(server);
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${port}`, sockets: () => open };
}

describe('ResponseHeaders', () => {
  test('reads and iterates as undici’s Headers does for the same answer', async () => {
    const srv = await scriptedServer((_req, res) => {
      res.setHeader('Set-Cookie', ['a=1; Path=/', 'b=2']);
      res.setHeader('X-Ratelimit-Remaining', '99');
      res.setHeader('Vary', ['Origin', 'Accept-Encoding']);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    const t = new Transport(1);
    closers.push(() => t.close());
    const res = await t.fetch(srv.url);
    const raw = await new Promise<string[]>((resolve) =>
      http.get(srv.url, (r) => (r.resume(), resolve(r.rawHeaders))),
    );
    const undici = new Headers();
    for (let i = 0; i < raw.length; i += 2) undici.append(raw[i]!, raw[i + 1]!);
    const ours = res.headers as unknown as ResponseHeaders;
    expect(ours).toBeInstanceOf(ResponseHeaders);
    const sameDate = (e: [string, string][]) => e.map(([k, v]) => [k, k === 'date' ? 'D' : v]);
    expect(sameDate([...ours])).toEqual(sameDate([...undici]));
    expect([...ours.keys()]).toEqual([...undici.keys()]);
    expect(ours.get('VARY')).toBe(undici.get('vary'));
    expect(ours.get('x-ratelimit-remaining')).toBe('99');
    expect(ours.get('missing')).toBeNull();
    expect(ours.has('Content-Type')).toBe(true);
    expect(ours.getSetCookie()).toEqual(undici.getSetCookie());
    const seen: string[] = [];
    ours.forEach((v, k) => seen.push(`${k}=${v}`));
    expect(seen).toContain('set-cookie=b=2');
    // With the client's debug log on, the answer carries a real Headers, which that log lists.
    const saved = process.env.OPENAI_LOG;
    process.env.OPENAI_LOG = 'debug';
    try {
      const debugged = (await t.fetch(srv.url)).headers;
      expect(debugged).toBeInstanceOf(Headers);
      expect(sameDate([...debugged])).toEqual(sameDate([...undici]));
    } finally {
      if (saved === undefined) delete process.env.OPENAI_LOG;
      else process.env.OPENAI_LOG = saved;
    }
  });
});

describe('Transport', () => {
  test('a POST is one buffered request; the answer serves status, headers, text and json', async () => {
    const seen: { method?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
    const srv = await scriptedServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, body, headers: req.headers });
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
        res.end(JSON.stringify({ ok: true, echo: body }));
      });
    });
    const t = new Transport(2);
    closers.push(() => t.close());
    const res = await t.fetch(`${srv.url}/v1/x`, {
      method: 'post',
      headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
      body: '{"a":"é"}',
    });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect(await res.json()).toEqual({ ok: true, echo: '{"a":"é"}' });
    await expect(res.text()).rejects.toThrow(/already been read/);
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"a":"é"}' });
    expect(seen[0]!.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
    expect(seen[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  test('path, query, credentials in the URL and IPv6 hosts reach the server as node:http sends them for a URL', async () => {
    const seen: { url?: string; auth?: string; host?: string }[] = [];
    const srv = await scriptedServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization, host: req.headers.host });
      res.end('ok');
    });
    const port = new URL(srv.url).port;
    const t = new Transport(2);
    closers.push(() => t.close());
    await t.fetch(`http://us%40er:p%3Ass@127.0.0.1:${port}/v1/chat?api-version=2024-10-21`);
    expect(seen[0]).toEqual({
      url: '/v1/chat?api-version=2024-10-21',
      auth: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
      host: `127.0.0.1:${port}`,
    });
    // A second URL after the first: each is sent to its own place.
    await t.fetch(`${srv.url}/other`);
    expect(seen[1]).toMatchObject({ url: '/other', auth: undefined });
    const v6 = http.createServer((req, res) => res.end(req.url));
    const v6port = await new Promise<number | null>((resolve) => {
      v6.once('error', () => resolve(null));
      v6.listen(0, '::1', () => resolve((v6.address() as net.AddressInfo).port));
    });
    if (v6port !== null) {
      closers.push(() => new Promise((r) => v6.close(r)));
      expect(await (await t.fetch(`http://[::1]:${v6port}/six`)).text()).toBe('/six');
    }
  });

  test('HTTP_PROXY: an http:// call is sent to the proxy with its full URL', async () => {
    const seen: { url?: string; host?: string }[] = [];
    const proxy = await scriptedServer((req, res) => {
      seen.push({ url: req.url, host: req.headers.host });
      res.end('via proxy');
    });
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
    process.env.HTTP_PROXY = proxy.url;
    delete process.env.NO_PROXY;
    closers.push(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
    const t = new Transport(1);
    closers.push(() => t.close());
    const res = await t.fetch('http://judge.internal:8080/v1/models?x=1');
    expect(await res.text()).toBe('via proxy');
    expect(seen).toEqual([{ url: 'http://judge.internal:8080/v1/models?x=1', host: 'judge.internal:8080' }]);
  });

  test('compressed answers are decoded; 204 has no body', async () => {
    const srv = await scriptedServer((req, res) => {
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ zipped: true })));
    });
    const t = new Transport(2);
    closers.push(() => t.close());
    const res = await t.fetch(`${srv.url}/z`);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ zipped: true });
    expect((await t.fetch(`${srv.url}/empty`)).status).toBe(204);
  });

  test("a compressed answer that inflates past the size cap is refused, not inflated (a target endpoint is the PR's)", async () => {
    // 64 MiB of zeros: tens of kilobytes on the wire, twice the cap once inflated.
    const zeros = Buffer.alloc(64 * 2 ** 20);
    const bombs: Record<string, Buffer> = {
      gzip: gzipSync(zeros),
      deflate: deflateSync(zeros),
      br: brotliCompressSync(zeros),
    };
    const srv = await scriptedServer((req, res) => {
      const encoding = req.url!.slice(1);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(bombs[encoding]);
    });
    const t = new Transport(2);
    closers.push(() => t.close());
    for (const encoding of Object.keys(bombs)) {
      expect(bombs[encoding]!.length).toBeLessThan(2 ** 20);
      await expect(t.fetch(`${srv.url}/${encoding}`)).rejects.toThrow(
        `the answer inflates (${encoding}) to over 32 MiB: refused`,
      );
    }
  });

  test('an answer over the size cap is refused, not buffered', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const srv = await scriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const pump = () => {
        while (sent < 40 && res.write(chunk)) sent++;
        if (sent < 40) res.once('drain', pump);
        else res.end();
      };
      res.on('error', () => {});
      pump();
    });
    const t = new Transport(1);
    closers.push(() => t.close());
    await expect(t.fetch(`${srv.url}/big`)).rejects.toThrow(/over 32 MiB/);
  });

  test('keep-alive: sequential calls reuse one socket', async () => {
    const srv = await scriptedServer((_req, res) => res.end('ok'));
    const t = new Transport(4);
    closers.push(() => t.close());
    for (let i = 0; i < 5; i++) expect(await (await t.fetch(`${srv.url}/`)).text()).toBe('ok');
    expect(srv.sockets()).toBe(1);
  });

  test('an aborted call rejects as an AbortError and frees its socket for the next call', async () => {
    let first = true;
    const srv = await scriptedServer((_req, res) => {
      if (first) {
        first = false;
        return; // never answers
      }
      res.end('second');
    });
    const t = new Transport(1); // one socket: the second call can only run if the first freed it
    closers.push(() => t.close());
    const ac = new AbortController();
    const hung = t.fetch(`${srv.url}/hang`, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
    const next = await t.fetch(`${srv.url}/next`, { signal: AbortSignal.timeout(2000) });
    expect(await next.text()).toBe('second');
  });

  test('a redirect to another origin is followed without the credentials', async () => {
    const target = await scriptedServer((req, res) =>
      res.end(JSON.stringify({ auth: req.headers.authorization ?? null })),
    );
    const origin = await scriptedServer((_req, res) => {
      res.writeHead(307, { location: `${target.url}/landing` });
      res.end();
    });
    const t = new Transport(2);
    closers.push(() => t.close());
    const res = await t.fetch(`${origin.url}/start`, { headers: { authorization: 'Bearer secret' } });
    expect(await res.json()).toEqual({ auth: null });
  });

  test("the openai client's error types and retry headers work through it", async () => {
    const srv = await scriptedServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1500' });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    const t = new Transport(2);
    closers.push(() => t.close());
    const client = new OpenAI({ baseURL: srv.url, apiKey: 'k', maxRetries: 0, fetch: t.fetch });
    const err = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after-ms')).toBe('1500');
  });
});

test('a judge attempt that times out frees its socket: with one socket, the retry still goes through', async () => {
  const judge = await startOpenAIServer({ script: [{ hang: true }] });
  closers.push(() => judge.close());
  const chat = new ChatCaller(
    // Long enough that the answered retry never times out on a loaded machine; the first hangs forever.
    { baseURL: judge.url, apiKey: 'k', model: 'm', azure: null, timeoutMs: 1500 },
    new AdaptiveLimiter(1),
    { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 1000 },
  );
  const res = await chat.create({ messages: [{ role: 'user', content: 'hi' }] });
  expect(res.content).toContain('hi');
  expect(chat.stats).toMatchObject({ calls: 2, timeouts: 1 });
});

/** A self-signed certificate for `localhost` and `judge.test`, made with the system's openssl. */
function selfSigned(dir: string): { key: string; cert: string; certFile: string } {
  const key = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,DNS:judge.test',
      '-keyout',
      key,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

/** TLS in front of the fake judge, so the judge URL is https:// as behind a corporate proxy. */
async function tlsFront(judge: FakeOpenAI, key: string, cert: string): Promise<number> {
  const target = new URL(judge.url);
  const server = tls.createServer({ key, cert }, (sock) => {
    const up = net.connect(Number(target.port), '127.0.0.1');
    sock.pipe(up).pipe(sock);
    up.on('error', () => sock.destroy());
    sock.on('error', () => up.destroy());
  });
  const port = await listen(server);
  closers.push(() => new Promise((r) => server.close(r)));
  return port;
}

describe('the CLI behind a proxy (dist/cli.js)', () => {
  /** `host`: judge.test resolves only through the test proxy; localhost is loopback. */
  async function setup(host = 'judge.test') {
    const dir = tmpDir('re-proxy-');
    const { key, cert, certFile } = selfSigned(dir);
    const judge = await startOpenAIServer();
    closers.push(() => judge.close());
    const port = await tlsFront(judge, key, cert);
    const proxy = await connectProxy();
    closers.push(proxy.close);
    const repo = makeFixtureRepo({});
    const args = [
      'run',
      'evals/*.yaml',
      '--judge-base-url',
      `https://${host}:${port}/v1`,
      '--no-cache',
      '--concurrency',
      '2',
    ];
    const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-proxy-test-000000', NODE_EXTRA_CA_CERTS: certFile };
    return { judge, proxy, repo, args, env };
  }

  test('HTTPS_PROXY: every judge call goes through CONNECT tunnels, reused (keep-alive)', async () => {
    const { judge, proxy, repo, args, env } = await setup();
    const r = await runCli(args, { cwd: repo, env: { ...env, HTTPS_PROXY: proxy.url } });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(judge.state.served).toBeGreaterThan(0);
    expect(proxy.tunnels()).toBeGreaterThanOrEqual(1);
    expect(proxy.tunnels()).toBeLessThanOrEqual(2); // at most one per socket, sockets <= concurrency
  });

  test('a loopback judge is reached directly, as the runner does, whatever HTTPS_PROXY says', async () => {
    const { judge, proxy, repo, args, env } = await setup('localhost');
    const r = await runCli(args, { cwd: repo, env: { ...env, HTTPS_PROXY: proxy.url } });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(judge.state.served).toBeGreaterThan(0);
    expect(proxy.tunnels()).toBe(0);
  });
});
