import { strToU8, zipSync } from 'fflate';

/**
 * A zip holding `entries` in order, where names may repeat (fflate's zipSync takes an object, so
 * it cannot write two entries of one name): each repeat is written under a stand-in name of the
 * same length, then renamed in its local header and in the central directory.
 */
export function zipWithRepeats(entries: readonly [name: string, data: string | Uint8Array][]): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const renames: [from: string, to: string][] = [];
  entries.forEach(([name, data], i) => {
    const standIn = name in files ? `${String.fromCharCode(0x41 + (i % 26))}${name.slice(1)}` : name;
    if (standIn in files) throw new Error(`zipWithRepeats: no stand-in name for entry ${i}`);
    if (standIn !== name) renames.push([standIn, name]);
    files[standIn] = typeof data === 'string' ? strToU8(data) : data;
  });
  const zip = zipSync(files, { level: 6 });
  for (const [from, to] of renames) renameAll(zip, strToU8(from), strToU8(to));
  return zip;
}

/** Every occurrence of `from` in `bytes` overwritten with `to` (same length). */
function renameAll(bytes: Uint8Array, from: Uint8Array, to: Uint8Array): void {
  outer: for (let i = 0; i + from.length <= bytes.length; i++) {
    for (let k = 0; k < from.length; k++) if (bytes[i + k] !== from[k]) continue outer;
    bytes.set(to, i);
  }
}

/** A zip of one entry `name` holding `data` (raw deflate when `method` is 8) that declares `declared` bytes. */
export function zipDeclaring(name: string, data: Uint8Array, method: 0 | 8, declared: number): Uint8Array {
  const z = zipSync({ [name]: [data, { level: 0 }] });
  const view = new DataView(z.buffer, z.byteOffset, z.byteLength);
  const central = z.length - 22 - (46 + name.length);
  for (const [at, methodAt, sizeAt] of [
    [0, 8, 22],
    [central, 10, 24],
  ] as const) {
    view.setUint16(at + methodAt, method, true);
    view.setUint32(at + sizeAt, declared, true);
  }
  return z;
}

/**
 * A raw deflate stream of one fixed-Huffman block: a literal zero, then `repeats` copies of
 * (length 258, distance 1), so about 258 × `repeats` zero bytes from 13 bits each. Huffman
 * blocks, not stored ones: an inflater that writes into a fixed buffer decodes them to the end.
 */
export function deflatedZeros(repeats: number): Uint8Array {
  const out = new Uint8Array(Math.ceil((3 + 8 + 13 * repeats + 7) / 8) + 1);
  let bit = 0;
  const put = (value: number, n: number, huffman = false) => {
    for (let i = 0; i < n; i++) {
      const b = huffman ? (value >> (n - 1 - i)) & 1 : (value >> i) & 1;
      if (b) out[bit >> 3]! |= 1 << (bit & 7);
      bit++;
    }
  };
  put(1, 1); // the final block
  put(1, 2); // fixed Huffman codes
  put(0x30, 8, true); // the literal 0
  for (let i = 0; i < repeats; i++) {
    put(0xc5, 8, true); // length 258 (code 285)
    put(0, 5, true); // distance 1 (code 0)
  }
  put(0, 7, true); // end of block
  return out.subarray(0, Math.ceil(bit / 8));
}
