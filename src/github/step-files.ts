import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { RubricEvalError } from '../core/errors.js';
import { openExistingNoFollow, writeFileNoFollow } from '../core/safe-write.js';

/**
 * The runner's per-step files: what the step reports (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and
 * what it hands later steps (GITHUB_ENV, GITHUB_PATH). Code the run executes gets their paths
 * and can write them; the action's own writes must be the last word. So the action records what
 * it wrote, and at its end (after the stragglers are killed, exec/reaper.ts) puts each file back
 * to what the runner gave it plus the action's own writes: whatever a gate or target appended,
 * before or after the action's writes, is gone.
 */
const STEP_FILES = ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'GITHUB_ENV', 'GITHUB_PATH'] as const;
type StepFile = (typeof STEP_FILES)[number];

/** What the action itself wrote: its output blocks in order, and its summary (null: none). */
export const ownWrites: { output: string; summary: string | null } = { output: '', summary: null };

/** Writes to a step file without following a link at its name (core/safe-write.ts). */
export function writeStepFile(file: string, text: string, how: 'append' | 'truncate'): void {
  const fd = openExistingNoFollow(file, how);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * The step file's size, refusing a link or anything but a regular file at its name: core appends
 * by path, so it would follow what a gate put there.
 */
export function regularStepFile(file: string): number {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    throw new RubricEvalError(`Missing file at path: ${file}`);
  }
  if (!st.isFile())
    throw new RubricEvalError(
      `refused to write ${file}: ${st.isSymbolicLink() ? 'is a symlink' : 'is not a regular file'}`,
    );
  return st.size;
}

/**
 * Puts a regular file holding `text` back at a step file's path when something the run started
 * replaced the runner's file (by a link, a FIFO, a folder) or removed it: a link or FIFO is
 * unlinked, never followed nor opened; a folder is removed with what it holds. Returns what stood
 * there, for a warning, or null when it was the regular file (left as it is).
 */
export function reclaimStepFile(file: string, text: string): string | null {
  let st: Stats | null;
  try {
    st = lstatSync(file);
  } catch {
    st = null;
  }
  if (st?.isFile()) return null;
  const what = !st
    ? 'missing'
    : st.isSymbolicLink()
      ? 'a symlink'
      : st.isDirectory()
        ? 'a folder'
        : st.isFIFO()
          ? 'a FIFO'
          : 'not a regular file';
  if (st?.isDirectory()) rmSync(file, { recursive: true, force: true });
  else if (st) unlinkSync(file);
  writeFileNoFollow(file, text);
  return what;
}

/** What was appended to `file` after it was `offset` bytes long (the block core just wrote). */
export function appendedSince(file: string, offset: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.max(0, size - offset));
    readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export type StepFilesAtStart = Partial<Record<StepFile, { path: string; text: string }>>;

/** The step files as the runner gave them, read before anything the run starts can write. */
export function stepFilesAtStart(env: NodeJS.ProcessEnv): StepFilesAtStart {
  const at: StepFilesAtStart = {};
  for (const name of STEP_FILES) {
    const file = env[name];
    if (!file) continue;
    try {
      at[name] = { path: file, text: readFileSync(file, 'utf8') };
    } catch {
      /* not there: nothing to restore */
    }
  }
  return at;
}

/**
 * Puts every step file back to its text at start plus the action's own writes. Returns the
 * names of the files that had been changed by someone else, for the log.
 */
export function restoreStepFiles(atStart: StepFilesAtStart): string[] {
  const changed: string[] = [];
  for (const name of STEP_FILES) {
    const start = atStart[name];
    if (!start) continue;
    const want =
      name === 'GITHUB_OUTPUT'
        ? start.text + ownWrites.output
        : name === 'GITHUB_STEP_SUMMARY'
          ? (ownWrites.summary ?? start.text)
          : start.text;
    if (unchanged(start.path, want)) continue;
    changed.push(name);
    try {
      // Removed, or a link, FIFO or folder put at its name: a new file of the action's own in its place.
      if (reclaimStepFile(start.path, want) === null) writeStepFile(start.path, want, 'truncate');
    } catch {
      /* the log says which file was changed */
    }
  }
  return changed;
}

/** The file is a regular file holding exactly `want` (its size is checked before it is read). */
function unchanged(file: string, want: string): boolean {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size !== Buffer.byteLength(want)) return false;
    return readFileSync(file, 'utf8') === want;
  } catch {
    return false;
  }
}
