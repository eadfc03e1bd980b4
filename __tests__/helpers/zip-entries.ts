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
