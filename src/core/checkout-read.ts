import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { RubricEvalError } from './errors.js';

/** Why a file was not read: each names the file, for the message a user sees. */
export type ReadRefusal = 'escapes-workspace' | 'missing-file' | 'not-a-file' | 'too-large';

/** A file the action would not read, and why (`rule`, as a diagnostic names it). */
export class FileReadRefused extends RubricEvalError {
  override name = 'FileReadRefused';
  constructor(
    readonly rule: ReadRefusal,
    readonly absPath: string,
    message: string,
  ) {
    super(message);
  }
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Reads `absPath` as UTF-8 when it is a regular file of at most `maxBytes`, through no link at
 * its name (opened with O_NOFOLLOW, non-blocking so a FIFO cannot hold the process, then checked
 * on the open descriptor, so nothing can swap the file between check and read). Throws
 * FileReadRefused naming `shown` otherwise. For files outside any checkout rule (a cache folder);
 * a file of the checkout goes through `Workspace.readText`, which adds containment.
 */
export function readRegularFile(absPath: string, maxBytes: number, shown = absPath): string {
  let fd: number;
  try {
    fd = openSync(absPath, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new FileReadRefused('not-a-file', absPath, `${shown} is a symlink: not read`);
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new FileReadRefused('missing-file', absPath, `${shown} not found`);
    throw new FileReadRefused('missing-file', absPath, `cannot read ${shown}: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new FileReadRefused('not-a-file', absPath, `${shown} is not a regular file: not read`);
    if (st.size > maxBytes) throw new FileReadRefused('too-large', absPath, tooLarge(st.size, maxBytes));
    // Read at most one byte past the bound: a file growing after the check is still cut off.
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, null);
    if (got > maxBytes) throw new FileReadRefused('too-large', absPath, tooLarge(got, maxBytes));
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export const tooLarge = (size: number, max: number) =>
  `file is ${(size / 1024 / 1024).toFixed(1)} MB; the limit is ${+(max / 1024 / 1024).toFixed(1)} MB`;

/** Whether something (a file, a folder, a link, whatever it points to) stands at `absPath`. */
export function present(absPath: string): boolean {
  try {
    lstatSync(absPath);
    return true;
  } catch {
    return false;
  }
}

/**
 * `size:sha256` of a regular file's bytes, the first `maxBytes` past that size; null when it is
 * not one (missing, a FIFO, a folder). Links are followed here: a script a command names runs
 * through its link, so its content is what decides the grade; nothing of it is shown.
 */
export function fileDigest(abs: string, maxBytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const buf = Buffer.alloc(Math.min(st.size, maxBytes));
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return `${st.size}:${createHash('sha256').update(buf.subarray(0, read)).digest('hex')}`;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
