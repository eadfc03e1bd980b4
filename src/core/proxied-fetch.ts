import { getProxyForUrl } from 'proxy-from-env';
import type { Dispatcher } from 'undici';

/**
 * `fetch` through the runner's proxy: `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`, decided per URL by
 * the same rules as the judge's transport. Node's own `fetch` ignores those variables, so on a
 * self-hosted runner behind a proxy every GitHub call (the comment, the pull request, the
 * baseline artifact and its download) and every suite file fetched by URL would fail. Without a
 * proxy for the URL this is Node's `fetch` itself; with one, undici's `fetch` over a
 * `ProxyAgent` (loaded only then).
 */
export async function proxiedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const proxy = getProxyForUrl(url);
  if (!proxy) return fetch(input, init);
  const undici = await import(/* webpackMode: "eager" */ 'undici');
  let dispatcher = agents.get(proxy);
  if (!dispatcher) {
    dispatcher = new undici.ProxyAgent(proxy);
    agents.set(proxy, dispatcher);
  }
  const res = await undici.fetch(input as Parameters<typeof undici.fetch>[0], {
    ...(init as Parameters<typeof undici.fetch>[1]),
    dispatcher,
  });
  return res as unknown as Response;
}

/** One agent per proxy, kept for the run: its connections to the proxy are reused. */
const agents = new Map<string, Dispatcher>();
