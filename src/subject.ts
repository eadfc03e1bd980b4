import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Subject } from './judge/prompts.js';

const exec = promisify(execFile);

/** Characters of unified diff the checker sees; larger diffs drop whole files, largest first. */
export const DIFF_BUDGET = 60_000;

/** Splits a unified diff into per-file pieces (`diff --git a/x b/x` headers). */
export function splitDiff(diff: string): { file: string; text: string }[] {
  const pieces: { file: string; text: string }[] = [];
  const re = /^diff --git a\/(.+?) b\/(.+)$/gm;
  const starts: { index: number; file: string }[] = [];
  for (let m = re.exec(diff); m; m = re.exec(diff)) starts.push({ index: m.index, file: m[2]! });
  if (starts.length === 0) return diff.trim() ? [{ file: '(diff)', text: diff }] : [];
  starts.forEach((s, i) =>
    pieces.push({ file: s.file, text: diff.slice(s.index, starts[i + 1]?.index ?? diff.length) }),
  );
  return pieces;
}

/**
 * Fits a diff into `budget` characters by leaving out whole files, largest first (lock files and
 * generated code are usually the largest and the least telling), and names what was left out.
 */
export function budgetDiff(
  diff: string,
  budget = DIFF_BUDGET,
): { diff: string; files: string[]; trimmed: string[] } {
  const pieces = splitDiff(diff);
  const files = pieces.map((p) => p.file);
  let total = pieces.reduce((s, p) => s + p.text.length, 0);
  const dropped = new Set<string>();
  for (const p of [...pieces].sort((a, b) => b.text.length - a.text.length)) {
    if (total <= budget) break;
    dropped.add(p.file);
    total -= p.text.length;
  }
  const kept = pieces
    .filter((p) => !dropped.has(p.file))
    .map((p) => p.text)
    .join('');
  return { diff: kept, files, trimmed: [...dropped] };
}

export function subjectFromDiff(
  kind: Subject['kind'],
  title: string,
  body: string,
  diff: string,
  budget = DIFF_BUDGET,
): Subject {
  const b = budgetDiff(diff, budget);
  return { kind, title, body, files: b.files, diff: b.diff, trimmed: b.trimmed };
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await exec('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The last commit as the subject (outside a pull request). */
export async function lastCommitSubject(cwd: string): Promise<Subject> {
  const title = (await git(cwd, ['log', '-1', '--format=%s'])).trim();
  const body = (await git(cwd, ['log', '-1', '--format=%b'])).trim();
  const diff = await git(cwd, ['show', '--format=', '--no-color', '--no-ext-diff', 'HEAD']);
  return subjectFromDiff('commit', title, body, diff);
}

/** The change from `base` (its merge base with HEAD) to the working tree's HEAD, locally. */
export async function gitDiffSubject(cwd: string, base: string): Promise<Subject> {
  const mergeBase = (await git(cwd, ['merge-base', base, 'HEAD'])).trim();
  const diff = await git(cwd, ['diff', '--no-color', '--no-ext-diff', `${mergeBase}..HEAD`]);
  const title = (await git(cwd, ['log', '-1', '--format=%s'])).trim();
  return subjectFromDiff('diff', title, `Changes since ${base}`, diff);
}
