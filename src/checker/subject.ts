import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RubricEvalError } from '../core/errors.js';
import { noteChildProcess } from '../exec/reaper.js';

const exec = promisify(execFile);

/** The change the checker judges: a pull request, the last commit, or a local diff. */
export interface Subject {
  kind: 'pull_request' | 'commit' | 'diff';
  title: string;
  body: string;
  files: string[];
  diff: string;
  /** Files whose diff was left out to fit the budget. */
  trimmed: string[];
}

/** Characters of unified diff the checker sees; larger diffs drop whole files, largest first. */
const DIFF_BUDGET = 60_000;

/** Splits a unified diff into per-file pieces (`diff --git` headers), each named by its new path. */
export function splitDiff(diff: string): { file: string; text: string }[] {
  const starts = [...diff.matchAll(/^diff --git (.+)$/gm)];
  if (starts.length === 0) return diff.trim() ? [{ file: '(diff)', text: diff }] : [];
  return starts.map((m, i) => {
    const text = diff.slice(m.index, starts[i + 1]?.index ?? diff.length);
    return { file: diffFileName(m[1]!, text), text };
  });
}

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;

/**
 * The new path of one file's diff. Git writes a name with special characters C-quoted
 * (`"b/say \"hi\".txt"`, non-ASCII as octal bytes) and a name with spaces bare, where
 * `a/x y b/x y` splits only where both halves agree; a rename's bare header cannot be split, so
 * its `rename to` or `+++` line names it.
 */
function diffFileName(header: string, piece: string): string {
  const both = new RegExp(`^(${QUOTED}|a/.*?) (${QUOTED}|b/.*)$`).exec(header);
  const side = (s: string) => (s.startsWith('"') ? unquoteC(s) : s).slice(2);
  if (both && (both[1]!.startsWith('"') || both[2]!.startsWith('"'))) return side(both[2]!);
  const name = header.slice(2, 2 + (header.length - 5) / 2);
  if (header === `a/${name} b/${name}`) return name;
  const named = /^(?:rename to|copy to) (.+)$/m.exec(piece)?.[1];
  if (named) return named.startsWith('"') ? unquoteC(named) : named;
  const plus = /^\+\+\+ ("(?:[^"\\]|\\.)*"|b\/.*?)\t?$/m.exec(piece)?.[1];
  if (plus) return side(plus);
  return both ? side(both[2]!) : header;
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** A C-quoted path as git writes it: backslash escapes and octal bytes of UTF-8. */
function unquoteC(quoted: string): string {
  const bytes: number[] = [];
  const body = quoted.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      const next = body[i + 1] ?? '';
      bytes.push(...(C_ESCAPES[next] !== undefined ? [C_ESCAPES[next]] : Buffer.from(next, 'utf8')));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
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

/**
 * How long one git command may take. Reading a commit or a diff is quick; a git that waits
 * (a lock, a credential prompt, a hung filesystem) must fail the run, not hang it.
 */
const GIT_TIMEOUT_MS = 60_000;

async function git(cwd: string, args: string[], timeoutMs: number): Promise<string> {
  try {
    noteChildProcess();
    const { stdout } = await exec('git', args, {
      cwd,
      // Named, not left to the default: the environment as this module sees it, which a test's
      // sandbox (a git on PATH) can set.
      env: process.env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    return stdout;
  } catch (err) {
    if ((err as { killed?: boolean }).killed)
      throw new RubricEvalError(`git ${args[0]} did not finish within ${timeoutMs / 1000} s`, { cause: err });
    throw err;
  }
}

/** The last commit as the subject (outside a pull request). */
export async function lastCommitSubject(cwd: string, timeoutMs = GIT_TIMEOUT_MS): Promise<Subject> {
  const title = (await git(cwd, ['log', '-1', '--format=%s'], timeoutMs)).trim();
  const body = (await git(cwd, ['log', '-1', '--format=%b'], timeoutMs)).trim();
  const diff = await git(cwd, ['show', '--format=', '--no-color', '--no-ext-diff', 'HEAD'], timeoutMs);
  return subjectFromDiff('commit', title, body, diff);
}

/** The change from `base` (its merge base with HEAD) to the working tree's HEAD, locally. */
export async function gitDiffSubject(
  cwd: string,
  base: string,
  timeoutMs = GIT_TIMEOUT_MS,
): Promise<Subject> {
  const mergeBase = (await git(cwd, ['merge-base', base, 'HEAD'], timeoutMs)).trim();
  const diff = await git(cwd, ['diff', '--no-color', '--no-ext-diff', `${mergeBase}..HEAD`], timeoutMs);
  const title = (await git(cwd, ['log', '-1', '--format=%s'], timeoutMs)).trim();
  return subjectFromDiff('diff', title, `Changes since ${base}`, diff);
}
