import { createHash } from 'node:crypto';
import { sha256Hex } from '../../src/core/sha256.js';

// Rubric hashes, shard plan ids, cache keys and remote-file names are stored in results files and
// on disk: the fast path must give the bytes createHash gave, for any text (UTF-8, as Node hashes).
test.each(['', 'plain', 'Gates — “quoted” ✓ 日本語 🎉', 'line\r\nbreak\u0000nul'])(
  'sha256Hex(%j) is createHash',
  (text) => {
    const hex = createHash('sha256').update(text).digest('hex');
    expect(sha256Hex(text)).toBe(hex);
    for (const chars of [12, 16, 32]) expect(sha256Hex(text, chars)).toBe(hex.slice(0, chars));
  },
);
