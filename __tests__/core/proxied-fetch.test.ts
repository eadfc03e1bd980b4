import http from 'node:http';
import net from 'node:net';
import { proxiedFetch } from '../../src/core/proxied-fetch.js';
import { startGitHubServer } from '../../__fixtures__/servers/github-server.mjs';
import { createOctokit } from '../../src/github/client.js';
import { connectProxy } from '../helpers/proxy.js';

const closers: (() => Promise<unknown> | void)[] = [];
const VARS = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'GITHUB_API_URL',
];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));
beforeEach(() => {
  for (const k of VARS) delete process.env[k];
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function listen(handler: http.RequestListener): Promise<number> {
  const s = http.createServer(handler);
  const port = await new Promise<number>((r) =>
    s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)),
  );
  closers.push(() => {
    s.closeAllConnections();
    return new Promise((r) => s.close(r));
  });
  return port;
}

async function proxy() {
  const p = await connectProxy();
  closers.push(p.close);
  process.env.HTTP_PROXY = p.url;
  return p;
}

// `site.test` resolves only through the test proxy (to 127.0.0.1): a call that reached it went through.
test('HTTP_PROXY: the call goes through the proxy', async () => {
  const port = await listen((req, res) => res.end(`answered ${req.url}`));
  const p = await proxy();
  const res = await proxiedFetch(`http://site.test:${port}/through?x=1`, { headers: { 'x-test': '1' } });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('answered /through?x=1');
  expect(p.tunnels()).toBe(1);
});

test('a loopback URL and a NO_PROXY host are reached directly', async () => {
  const port = await listen((req, res) => res.end(`answered ${req.url}`));
  const p = await proxy();
  expect(await (await proxiedFetch(`http://127.0.0.1:${port}/direct`)).text()).toBe('answered /direct');
  process.env.NO_PROXY = 'site.test';
  // Direct means the name is looked up here, where it does not exist.
  await expect(proxiedFetch(`http://site.test:${port}/`)).rejects.toThrow();
  expect(p.tunnels()).toBe(0);
});

test('through the proxy, an abort still ends the call', async () => {
  const port = await listen(() => {}); // never answers
  await proxy();
  const ac = new AbortController();
  const call = proxiedFetch(`http://site.test:${port}/`, { signal: ac.signal });
  setTimeout(() => ac.abort(), 100);
  await expect(call).rejects.toMatchObject({ name: 'AbortError' });
});

test('a proxy that refuses the tunnel is named, with its status, without its credentials', async () => {
  const refusing = http.createServer();
  refusing.on('connect', (_req, socket: net.Socket) => {
    socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
  });
  const port = await new Promise<number>((r) =>
    refusing.listen(0, '127.0.0.1', () => r((refusing.address() as net.AddressInfo).port)),
  );
  closers.push(() => new Promise((r) => refusing.close(r)));
  process.env.HTTPS_PROXY = `http://user:s3cret@127.0.0.1:${port}`;
  const err = (await proxiedFetch('https://api.github.test/').catch((e: unknown) => e)) as Error & {
    cause: Error;
  };
  expect(err).toBeInstanceOf(TypeError);
  expect(err.cause.message).toMatch(new RegExp(`through the proxy at 127\\.0\\.0\\.1:${port}: .*407`));
  expect(err.cause.message).not.toContain('s3cret');
});

test('GitHub calls (Octokit) go through the proxy', async () => {
  const github = await startGitHubServer({});
  closers.push(() => github.close());
  const p = await proxy();
  process.env.GITHUB_API_URL = github.url.replace('127.0.0.1', 'github.test');
  const octokit = createOctokit('ghs_x_000000', { warn: () => {}, timeoutMs: 10_000 });
  await octokit.rest.issues.listComments({ owner: 'o', repo: 'r', issue_number: 7 });
  expect(p.tunnels()).toBeGreaterThanOrEqual(1);
  expect(github.state.requests.some((q) => q.path.endsWith('/7/comments'))).toBe(true);
});
