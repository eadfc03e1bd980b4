import fc from 'fast-check';
import { Redactor } from '../../src/exec/redact.js';

const SECRET = 'sk-Ab3Cd4Ef5Gh6Ij7';

/** Feeds `text` to a stream redactor in the given chunk sizes and returns what came out. */
function streamed(redactor: Redactor, text: string, sizes: number[]): string {
  const s = redactor.stream();
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(s.push(bytes.subarray(at, at + n)));
    at += n;
  }
  out.push(s.push(bytes.subarray(at)), s.end());
  return Buffer.concat(out).toString();
}

test('a stream redacts a secret split across any chunking exactly like redacting the whole text', () => {
  const redactor = new Redactor([SECRET, 'another-secret-value']);
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('x', 'é', SECRET, 'another-secret-value', 'sk-Ab3', '\n'), { maxLength: 30 }),
      fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 30 }),
      (pieces, sizes) => {
        const text = pieces.join('');
        expect(streamed(redactor, text, sizes)).toBe(redactor.redact(text));
      },
    ),
  );
});

test('a stream with no secrets passes bytes through untouched', () => {
  expect(streamed(new Redactor([]), 'plain output', [3, 4])).toBe('plain output');
});

test('a multi-line secret is redacted whole and line by line, CRLF or LF', () => {
  const pem = '-----BEGIN KEY-----\r\nAAAABBBBCCCCDDDD\r\nEEEEFFFFGGGGHHHH\r\n-----END KEY-----';
  const r = new Redactor([pem]);
  expect(r.redact(`whole: ${pem}`)).toBe('whole: ***');
  expect(r.redact(`one line: AAAABBBBCCCCDDDD.`)).toBe('one line: ***.');
  expect(r.redact(pem.replace(/\r\n/g, '\n'))).toBe('***');
  // Lines shorter than the 6-character floor stay (they hide nothing): here none is.
  expect(r.count).toBeGreaterThanOrEqual(5);
});
