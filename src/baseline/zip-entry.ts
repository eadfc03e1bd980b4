import { inflateRawSync } from 'node:zlib';
import { strFromU8 } from 'fflate';

/**
 * One entry of a zip, inflated with no more output than its declared size. The directory's sizes
 * are the archive's own word: an inflater told to fill a buffer of the declared size keeps
 * decompressing a stream that is larger (seconds of synchronous CPU per megabyte of a crafted
 * archive), so the entry's raw bytes are taken from the archive here and inflated by zlib with
 * `maxOutputLength`, which stops as soon as the output passes the declared size.
 */

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** A 32-bit field set to this (or a 16-bit one to 0xffff) moves the value to a zip64 record. */
const ZIP64 = 0xffffffff;

type Read = { bytes: Uint8Array } | { error: string };

/** Where the central directory starts and how many entries it holds, or why not. */
function directory(zip: Uint8Array, view: DataView): { at: number; count: number } | string {
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) !== EOCD) continue;
    const count = view.getUint16(i + 10, true);
    const at = view.getUint32(i + 16, true);
    if (count === 0xffff || at === ZIP64) return 'a zip64 archive is not read';
    return { at, count };
  }
  return 'no end of central directory';
}

/** The raw bytes of the entry named `name` (as the directory spells it) and its declared sizes. */
function rawEntry(
  zip: Uint8Array,
  name: string,
): { data: Uint8Array; method: number; size: number } | string {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const dir = directory(zip, view);
  if (typeof dir === 'string') return dir;
  let p = dir.at;
  for (let n = 0; n < dir.count; n++) {
    if (p + 46 > zip.length || view.getUint32(p, true) !== CENTRAL) return 'the central directory is damaged';
    const flags = view.getUint16(p + 8, true);
    const nameLength = view.getUint16(p + 28, true);
    const skip = 46 + nameLength + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
    // Names decoded as fflate decodes them (UTF-8 only with the language-encoding flag), so the listing's name matches.
    if (strFromU8(zip.subarray(p + 46, p + 46 + nameLength), !(flags & 0x800)) !== name) {
      p += skip;
      continue;
    }
    const compressed = view.getUint32(p + 20, true);
    const size = view.getUint32(p + 24, true);
    const local = view.getUint32(p + 42, true);
    if (compressed === ZIP64 || size === ZIP64 || local === ZIP64) return 'a zip64 entry is not read';
    if (local + 30 > zip.length || view.getUint32(local, true) !== LOCAL)
      return 'its local header is damaged';
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + compressed > zip.length) return 'its data runs past the end of the archive';
    return { data: zip.subarray(start, start + compressed), method: view.getUint16(p + 10, true), size };
  }
  return 'it is not in the central directory';
}

/**
 * The inflated bytes of `name`, which must be exactly its declared size: a stored entry whose
 * stored bytes differ from it, or a deflated one that inflates to more or less, is refused.
 */
export function inflateEntry(zip: Uint8Array, name: string): Read {
  const raw = rawEntry(zip, name);
  if (typeof raw === 'string') return { error: `${name} in the artifact is corrupt (${raw})` };
  const { data, method, size } = raw;
  if (method === 0)
    return data.length === size
      ? { bytes: data }
      : { error: `${name} in the artifact stores ${data.length} bytes but declares ${size}: refused` };
  if (method !== 8)
    return { error: `${name} in the artifact uses compression method ${method}, which is not read` };
  let out: Buffer;
  try {
    out = inflateRawSync(data, { maxOutputLength: Math.max(1, size) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      return { error: `${name} in the artifact inflates past its declared ${size} bytes: refused` };
    return { error: `${name} in the artifact is corrupt (${(err as Error).message})` };
  }
  if (out.length !== size)
    return {
      error: `${name} in the artifact inflates to ${out.length} bytes, not its declared ${size}: refused`,
    };
  return { bytes: new Uint8Array(out.buffer, out.byteOffset, out.length) };
}
