import crypto from 'node:crypto';

/**
 * The sha256 of a text, in hex. Node's one-shot `crypto.hash` (Node 20.12 and later) skips the
 * Hash object that `createHash` builds, which is most of the cost for the short texts hashed once
 * or twice per case (prompt fences, definition hashes); older Node 20 releases take the long way.
 */
export const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');
