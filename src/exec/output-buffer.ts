import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type StreamRedactor } from './redact.js';
import { RubricEvalError } from '../core/errors.js';

/**
 * Keeps the first `headBytes` and the last `tailBytes` of a stream, however long it gets: a gate
 * printing 50 MB costs 20 KB of memory. The end of a failing test run is what matters, so the
 * tail is the larger part.
 */
export class HeadTailBuffer {
  private head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  total = 0;

  constructor(
    readonly headBytes = 4 * 1024,
    readonly tailBytes = 16 * 1024,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headSize < this.headBytes) {
      const take = rest.subarray(0, this.headBytes - this.headSize);
      this.head.push(take);
      this.headSize += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailSize += rest.length;
    while (this.tailSize - (this.tail[0]?.length ?? 0) >= this.tailBytes) {
      this.tailSize -= this.tail.shift()!.length;
    }
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    let tail = Buffer.concat(this.tail);
    const cut = this.total - this.headSize - Math.min(tail.length, this.tailBytes);
    if (tail.length > this.tailBytes) tail = tail.subarray(tail.length - this.tailBytes);
    if (cut <= 0) return head + tail.toString('utf8');
    return `${head}\n[… ${cut} bytes cut …]\n${tail.toString('utf8')}`;
  }
}

/** Keeps everything up to `limit` bytes (for stdout that must be parsed whole). */
export class BoundedBuffer {
  private chunks: Buffer[] = [];
  size = 0;
  overflowed = false;
  constructor(readonly limit: number) {}
  push(chunk: Buffer): void {
    if (this.size + chunk.length > this.limit) {
      this.overflowed = true;
      const room = this.limit - this.size;
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  toString(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * A file a command wrote (a CLI target's {OUTPUT_FILE}), read as its stdout is: redacted as the
 * bytes come in, at most `limit` kept, the rest never read. Only a regular file is read, never
 * through a link at its name: the command may have put a FIFO (a read that never ends), a link to
 * /dev/zero or to a file of the runner's in its place.
 */
export function readCapped(
  file: string,
  limit: number,
  clean: StreamRedactor,
): { text: string; overflowed: boolean; size: number } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new RubricEvalError('a symlink, not a file: refused', { cause: err });
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new RubricEvalError('not a regular file');
    const out = new BoundedBuffer(limit);
    for (let pos = 0; !out.overflowed;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      pos += n;
      out.push(clean.push(chunk.subarray(0, n)));
    }
    out.push(clean.end());
    return { text: out.toString(), overflowed: out.overflowed, size: stat.size };
  } finally {
    closeSync(fd);
  }
}
