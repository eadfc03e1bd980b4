import type { Dispatcher } from 'undici';
import { hasMessage, RubricEvalError } from './errors.js';
import { proxyFor } from './proxy-for.js';

/**
 * `fetch` through the runner's proxy (`proxyFor`: the rules of GitHub's runner). Node's own
 * `fetch` ignores the proxy variables, so on a self-hosted runner behind a proxy every GitHub
 * call (the comment, the pull request, the baseline artifact and its download) and every suite
 * file fetched by URL would fail. Without a proxy for the URL this is Node's `fetch` itself; with
 * one, undici's `fetch` over a `ProxyAgent` (loaded only then).
 */
export async function proxiedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? new URL(input) : input;
  const proxy = proxyFor(url);
  if (!proxy) return fetch(input, init);
  const undici = await import(/* webpackMode: "eager" */ 'undici');
  let agent = agents.get(proxy);
  if (!agent) {
    agent = new undici.ProxyAgent({
      uri: proxy,
      // The proxy's answer to CONNECT is not tied to any call's signal: an aborted call would
      // leave a tunnel waiting (and the process alive) for undici's default of 5 minutes.
      clientFactory: (origin, options) =>
        new undici.Pool(origin, {
          ...options,
          headersTimeout: PROXY_ANSWER_MS,
          connectTimeout: PROXY_ANSWER_MS,
        }),
    });
    agents.set(proxy, agent);
  }
  try {
    const res = await undici.fetch(url, {
      ...(init as Parameters<typeof undici.fetch>[1]),
      dispatcher: agent,
    });
    return res as unknown as Response;
  } catch (err) {
    if (init?.signal?.aborted) throw err;
    // undici says "fetch failed" caused by "Request was cancelled." and keeps the reason (a 407,
    // a 403 from the proxy) one level further down: the message names it, and the proxy's host
    // (never its credentials).
    throw new TypeError('fetch failed', {
      cause: new RubricEvalError(`through the proxy at ${new URL(proxy).host}: ${innermost(err)}`, {
        cause: err,
      }),
    });
  }
}

/** How long a proxy may take to answer a tunnel request. */
const PROXY_ANSWER_MS = 30_000;

/** One agent per proxy, kept for the run: its connections to the proxy are reused. */
const agents = new Map<string, Dispatcher>();

/** The deepest cause's message (by shape: undici's causes include a `DOMException`). */
function innermost(err: unknown): string {
  let e = err;
  while (hasMessage(e) && hasMessage(e.cause)) e = e.cause;
  return hasMessage(e) ? e.message : String(e);
}
