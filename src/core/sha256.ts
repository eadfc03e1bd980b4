import crypto from 'node:crypto';

const digest: (text: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'buffer')
    : (text) => crypto.createHash('sha256').update(text).digest();

/**
 * The sha256 of a text, in hex; with `chars`, its first `chars` hex digits (even). Node's one-shot
 * `crypto.hash` (Node 20.12 and later) skips the Hash object that `createHash` builds, which is
 * most of the cost for the short texts hashed once or twice per case (prompt fences, definition
 * hashes); older Node 20 releases take the long way. A prefix is written from the digest itself:
 * a slice of the full hex would keep the full hex alive with it (10,000 definition hashes held
 * 3.5 MB that way).
 */
export function sha256Hex(text: string, chars = 64): string {
  return digest(text).toString('hex', 0, chars / 2);
}
