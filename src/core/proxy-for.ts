/**
 * The proxy a call to `url` goes through, or null for a direct connection, by the rules GitHub's
 * runner and its toolkit (`@actions/http-client`) apply to the same variables, so a runner set up
 * by GitHub's documentation behaves the same for every call this tool makes:
 * - `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy`/`HTTP_PROXY` for http ones (the
 *   lower-case name first); a proxy written without a scheme is `http://`;
 * - loopback hosts (`localhost`, `127.*`, `[::1]`) are always reached directly;
 * - `no_proxy`/`NO_PROXY`: comma-separated, case-insensitive; `*` matches every host; an entry
 *   matches the host itself, its subdomains, or `host:port` (ports 80 and 443 implied by the
 *   scheme); a leading dot matches subdomains only.
 */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): string | null {
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') return null;
  if (isLoopback(url.hostname) || bypassed(url, env.no_proxy || env.NO_PROXY || '')) return null;
  const proxy = secure ? env.https_proxy || env.HTTPS_PROXY : env.http_proxy || env.HTTP_PROXY;
  if (!proxy) return null;
  return /^https?:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.startsWith('127.') || h === '[::1]' || h === '[0:0:0:0:0:0:0:1]';
}

function bypassed(url: URL, noProxy: string): boolean {
  if (!noProxy) return false;
  const host = url.hostname.toUpperCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const names = [host, `${host}:${port}`];
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toUpperCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const dotted = entry.startsWith('.');
    if (names.some((n) => n === entry || n.endsWith(dotted ? entry : `.${entry}`))) return true;
  }
  return false;
}
