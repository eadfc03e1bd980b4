// proxy-from-env ships no types; this is the one function used.
declare module 'proxy-from-env' {
  /** The proxy URL for `url` from HTTP(S)_PROXY / ALL_PROXY / NO_PROXY, or '' for a direct connection. */
  export function getProxyForUrl(url: string): string;
}
