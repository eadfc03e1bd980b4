import http from 'node:http';
import net from 'node:net';
import { proxiedFetch } from '../../src/core/proxied-fetch.js';
import { startGitHubServer } from '../../__fixtures__/servers/github-server.mjs';
import { createOctokit } from '../../src/github/client.js';
import { connectProxy } from '../helpers/proxy.js';

const closers: (() => Promise<unknown> | void)[] = [];
const PROXY_VARS = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
];
const saved = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]));
beforeEach(() => {
  for (const k of PROXY_VARS) delete process.env[k];
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function server(): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const s = http.createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`answered ${req.url}`);
  });
  const port = await new Promise<number>((r) =>
    s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)),
  );
  closers.push(() => {
    s.closeAllConnections();
    return new Promise((r) => s.close(r));
  });
  return { url: `http://127.0.0.1:${port}`, hits: () => hits };
}

test('no proxy set: a direct call', async () => {
  const target = await server();
  const proxy = await connectProxy();
  closers.push(proxy.close);
  expect(await (await proxiedFetch(`${target.url}/a?b=1`)).text()).toBe('answered /a?b=1');
  expect(proxy.tunnels()).toBe(0);
});

test('HTTP_PROXY: the call goes through the proxy; NO_PROXY names hosts reached directly', async () => {
  const target = await server();
  const proxy = await connectProxy();
  closers.push(proxy.close);
  process.env.HTTP_PROXY = proxy.url;
  const res = await proxiedFetch(new URL(`${target.url}/through`), { headers: { 'x-test': '1' } });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('answered /through');
  expect(proxy.tunnels()).toBe(1);
  process.env.NO_PROXY = '127.0.0.1';
  expect(await (await proxiedFetch(`${target.url}/direct`)).text()).toBe('answered /direct');
  expect(proxy.tunnels()).toBe(1);
  expect(target.hits()).toBe(2);
});

test('through the proxy, an abort still ends the call', async () => {
  const hung = http.createServer(() => {}); // never answers
  const port = await new Promise<number>((r) =>
    hung.listen(0, '127.0.0.1', () => r((hung.address() as net.AddressInfo).port)),
  );
  closers.push(() => {
    hung.closeAllConnections();
    return new Promise((r) => hung.close(r));
  });
  const proxy = await connectProxy();
  closers.push(proxy.close);
  process.env.HTTP_PROXY = proxy.url;
  const ac = new AbortController();
  const call = proxiedFetch(`http://127.0.0.1:${port}/`, { signal: ac.signal });
  setTimeout(() => ac.abort(), 100);
  await expect(call).rejects.toMatchObject({ name: 'AbortError' });
});

test('GitHub calls (Octokit) go through the proxy', async () => {
  const github = await startGitHubServer({});
  closers.push(() => github.close());
  const proxy = await connectProxy();
  closers.push(proxy.close);
  const api = process.env.GITHUB_API_URL;
  process.env.GITHUB_API_URL = github.url;
  closers.push(() => {
    if (api === undefined) delete process.env.GITHUB_API_URL;
    else process.env.GITHUB_API_URL = api;
  });
  process.env.HTTP_PROXY = proxy.url;
  const octokit = createOctokit('ghs_x_000000', { warn: () => {}, timeoutMs: 10_000 });
  await octokit.rest.issues.listComments({ owner: 'o', repo: 'r', issue_number: 7 });
  expect(proxy.tunnels()).toBeGreaterThanOrEqual(1);
  expect(github.state.requests.some((q) => q.path.endsWith('/7/comments'))).toBe(true);
});
