import { proxyFor } from '../../src/core/proxy-for.js';

const at = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env);

describe('proxyFor: the runner’s rules', () => {
  test('by scheme, lower-case names first; a proxy without a scheme is http://', () => {
    const env = { HTTPS_PROXY: 'http://secure:1', http_proxy: 'plain:2', HTTP_PROXY: 'http://ignored:3' };
    expect(at('https://api.github.com/x', env)).toBe('http://secure:1');
    expect(at('http://ghes.corp/x', env)).toBe('http://plain:2');
    expect(
      at('https://api.github.com/x', { https_proxy: 'https://lower:4', HTTPS_PROXY: 'http://upper:5' }),
    ).toBe('https://lower:4');
    expect(at('https://api.github.com/x', {})).toBeNull();
  });

  test('loopback hosts are always reached directly', () => {
    const env = { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1' };
    for (const url of [
      'http://localhost:8080',
      'https://LOCALHOST',
      'http://127.0.0.1:9',
      'http://127.8.9.10',
      'http://[::1]:5',
    ])
      expect(at(url, env)).toBeNull();
    expect(at('http://judge.test:5', env)).toBe('http://p:1');
  });

  test('NO_PROXY: a host and its subdomains, a leading dot for subdomains only, host:port, *', () => {
    const env = (no: string) => ({ HTTPS_PROXY: 'http://p:1', NO_PROXY: no });
    expect(at('https://corp.example/x', env('corp.example'))).toBeNull();
    expect(at('https://ghes.corp.example/x', env(' other.org , CORP.example'))).toBeNull();
    expect(at('https://notcorp.example/x', env('corp.example'))).toBe('http://p:1');
    expect(at('https://ghes.corp.example/x', env('.corp.example'))).toBeNull();
    expect(at('https://corp.example/x', env('.corp.example'))).toBe('http://p:1');
    expect(at('https://ghes.corp:8443/x', env('ghes.corp:8443'))).toBeNull();
    expect(at('https://ghes.corp/x', env('ghes.corp:443'))).toBeNull();
    expect(at('https://ghes.corp/x', env('ghes.corp:8443'))).toBe('http://p:1');
    expect(at('https://anything/x', env('*'))).toBeNull();
    expect(
      at('https://anything/x', { HTTPS_PROXY: 'http://p:1', no_proxy: 'anything', NO_PROXY: 'other' }),
    ).toBeNull();
  });
});
