import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { lstat, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { RubricEvalError } from './errors.js';

/**
 * Every file the action writes goes through here. The checkout belongs to the pull request: a
 * symlink committed where a cache entry, a fetched file or the results file will be written
 * would make the write land wherever the link points (another action's `dist/index.js`). So
 * below the folder it writes into (the workspace, the runner's temp dir) every component is
 * checked with lstat and created one by one, the file is written to an exclusive temp file
 * (O_EXCL | O_NOFOLLOW) beside it and renamed over the name, and a name that is a link is
 * refused. With confinement on (the action), a path outside those folders is refused too.
 *
 * Not covered: a process racing these checks. Only code the pull request runs (a gate, a target)
 * could, and it can write those files itself with the job's privileges (README: Disclosed).
 */
class UnsafeWriteError extends RubricEvalError {
  override name = 'UnsafeWriteError';
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
let confinedTo: string[] | null = null;

/** From now on, a write outside these folders (after following no link) is refused. */
export function confineWrites(roots: readonly (string | undefined)[]): void {
  confinedTo = [...new Set(roots.filter((r): r is string => !!r).map((r) => path.resolve(r)))];
}

/** Lifts confinement (tests). */
export function unconfineWrites(): void {
  confinedTo = null;
}

/**
 * Writes `data` (text, or batches of text) to `file` atomically: a reader sees the old file or
 * the new one, never half. `onBatch` sees each batch as it is written.
 */
export function writeFileNoFollow(
  file: string,
  data: string | Iterable<string>,
  onBatch?: (batch: string) => void,
): void {
  const dir = checkedDir(path.dirname(path.resolve(file)));
  const name = path.basename(file);
  const target = path.join(dir, name);
  const existing = lstatOrNull(target);
  if (existing?.isSymbolicLink()) throw refused(target, 'is a symlink');
  const tmp = tempName(dir, name);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o644);
  try {
    for (const batch of typeof data === 'string' ? [data] : data) {
      writeSync(fd, batch);
      onBatch?.(batch);
    }
    closeSync(fd);
  } catch (err) {
    closeQuietly(fd);
    unlinkQuietly(tmp);
    throw err;
  }
  try {
    renameSync(tmp, target);
  } catch (err) {
    unlinkQuietly(tmp);
    throw err;
  }
}

/**
 * `writeFileNoFollow` for one text, in the thread pool: a judge-cache entry written
 * synchronously per call held the main thread for a third of its busy time while the next calls
 * waited. For the same reason its folders are checked once per process (a cache has at most 256):
 * a process racing the checks is not covered by either writer (see above). A link at the name is
 * replaced by the rename, never followed.
 */
export async function writeFileNoFollowAsync(file: string, data: string): Promise<void> {
  const dir = await checkedDirOnce(path.dirname(path.resolve(file)));
  const tmp = tempName(dir, path.basename(file));
  const flag = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
  try {
    await writeFile(tmp, data, { flag, mode: 0o644 });
    await rename(tmp, path.join(dir, path.basename(file)));
  } catch (err) {
    // A half-written temp file (a full disk) is removed; one never created is not there (ENOENT).
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Folders `checkedDirOnce` has checked (or is checking), by path. */
const checkedDirs = new Map<string, Promise<string>>();

function checkedDirOnce(abs: string): Promise<string> {
  let checked = checkedDirs.get(abs);
  if (!checked) {
    checked = checkedDirAsync(abs);
    checkedDirs.set(abs, checked);
    // A refusal is said again on the next write (the folder may be fixed by then).
    checked.catch(() => checkedDirs.delete(abs));
  }
  return checked;
}

async function checkedDirAsync(abs: string): Promise<string> {
  const plan = dirPlan(abs);
  let dir = plan.start;
  for (const part of plan.parts) {
    dir = path.join(dir, part);
    let st = await lstat(dir).catch(() => null);
    if (!st) {
      await mkdir(dir, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      st = await lstat(dir).catch(() => null);
    }
    checkComponent(dir, st);
  }
  return dir;
}

/**
 * Opens a file the runner created (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY: their paths come from the
 * runner, not the checkout) to append to or to replace its content, never through a link at its
 * name (a gate could put one there), never creating it.
 */
export function openExistingNoFollow(file: string, how: 'append' | 'truncate'): number {
  const flags = how === 'append' ? constants.O_APPEND : constants.O_TRUNC;
  let fd: number;
  try {
    // Non-blocking: a FIFO put at the name would otherwise hold the process (past cancel) until
    // something reads it.
    fd = openSync(file, constants.O_WRONLY | flags | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refused(file, 'is a symlink');
    if (code === 'ENXIO') throw refused(file, 'is not a regular file');
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeQuietly(fd);
    throw refused(file, 'is not a regular file');
  }
  return fd;
}

/** Why nothing could be written under `dir` (it is created if it can be), or null. */
export function dirRefusal(dir: string): string | null {
  try {
    makeDirNoFollow(dir);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Creates `dir` and whatever of it is missing, refusing a link or a file on the way. */
export function makeDirNoFollow(dir: string): string {
  return checkedDir(path.resolve(dir));
}

/**
 * The folder's path with every component below its root checked (and created when missing):
 * none a symlink, each a folder. Returned as the checked path (the root as its real path).
 */
function checkedDir(abs: string): string {
  const plan = dirPlan(abs);
  let current = plan.start;
  for (const part of plan.parts) {
    current = path.join(current, part);
    let st = lstatOrNull(current);
    if (!st) {
      try {
        mkdirSync(current, { mode: 0o755 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      st = lstatOrNull(current);
    }
    checkComponent(current, st);
  }
  return current;
}

/**
 * Where the checks of `abs` start (its root's real path) and the components below it to check.
 * Outside every root with no confinement, the folder is made as it is and nothing is checked.
 */
function dirPlan(abs: string): { start: string; parts: string[] } {
  const root = rootOf(abs);
  if (root)
    return { start: root.real, parts: path.relative(root.lexical, abs).split(path.sep).filter(Boolean) };
  if (confinedTo)
    throw new UnsafeWriteError(
      `refusing to write to ${abs}: outside the workspace and the runner's temp dir (${confinedTo.join(', ')})`,
    );
  mkdirSync(abs, { recursive: true });
  return { start: abs, parts: [] };
}

function checkComponent(p: string, st: Stats | null): void {
  if (!st) throw refused(p, 'could not be created');
  if (st.isSymbolicLink()) throw refused(p, 'is a symlink');
  if (!st.isDirectory()) throw refused(p, 'is not a folder');
}

function tempName(dir: string, name: string): string {
  return path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** The innermost folder writes may go to that holds `abs`, lexically and as its real path. */
function rootOf(abs: string): { lexical: string; real: string } | null {
  const roots = confinedTo ?? [process.cwd(), ...tempDirs()];
  let best: { lexical: string; real: string } | null = null;
  for (const r of roots) {
    const real = realOrSelf(r);
    for (const lexical of new Set([r, real]))
      if (inside(lexical, abs) && (!best || lexical.length > best.lexical.length)) best = { lexical, real };
  }
  return best;
}

function tempDirs(): string[] {
  const dirs = [process.env.RUNNER_TEMP, os.tmpdir()];
  return dirs.filter((d): d is string => !!d).map((d) => path.resolve(d));
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The roots' real paths, resolved once: three `realpath` walks per write were most of a cache
 * entry's system calls. A root swapped later for a link is still checked from where it was.
 */
const realRoots = new Map<string, string>();

function realOrSelf(p: string): string {
  let real = realRoots.get(p);
  if (real === undefined) {
    try {
      realRoots.set(p, (real = realpathSync(p)));
    } catch {
      return p;
    }
  }
  return real;
}

function lstatOrNull(p: string): Stats | null {
  try {
    // No error built for the usual answer, nothing there yet (a new cache entry per judge call).
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function refused(p: string, why: string): UnsafeWriteError {
  return new UnsafeWriteError(`refusing to write through ${p}: it ${why} (a write never follows a link)`);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* not there */
  }
}
