import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { type LabelsAt, type LabelsReader } from '../calibration/stage.js';
import { RubricEvalError } from '../core/errors.js';
import { noteChildProcess } from '../exec/reaper.js';
import { Workspace } from '../core/workspace.js';
import { type Octokit, type Repo } from './client.js';
import { untilCancelled } from './call-outcome.js';

const exec = promisify(execFile);
/** Reading one blob is quick; a git that waits (a lock, a prompt) must fail the run, not hang it. */
const GIT_TIMEOUT_MS = 30_000;
/** Largest labels file read from the base (the working tree's cap is the workspace's). */
const MAX_LABELS_BYTES = 32 * 1024 * 1024;

type GitShow = { found: true; text: string } | { found: false } | { missing: 'commit' };

/**
 * The file at `sha` by git: `found: false` when the commit is there but the file is not; `missing`
 * when the checkout lacks the commit (a shallow clone), so the API must be asked.
 */
async function gitShow(cwd: string, sha: string, rel: string): Promise<GitShow> {
  noteChildProcess();
  try {
    await exec('git', ['cat-file', '-e', `${sha}^{commit}`], {
      cwd,
      timeout: GIT_TIMEOUT_MS,
      env: process.env,
    });
  } catch {
    return { missing: 'commit' };
  }
  try {
    const { stdout } = await exec('git', ['show', `${sha}:./${rel}`], {
      cwd,
      timeout: GIT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxBuffer: MAX_LABELS_BYTES,
      env: process.env,
      encoding: 'utf8',
    });
    return { found: true, text: stdout };
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '');
    if (/does not exist in|exists on disk, but not in/.test(stderr)) return { found: false };
    throw new RubricEvalError(
      `git show ${sha.slice(0, 7)}:${rel} failed: ${stderr.trim() || (err as Error).message}`,
    );
  }
}

async function apiShow(
  octokit: Octokit,
  repo: Repo,
  sha: string,
  repoPath: string,
  signal: AbortSignal,
): Promise<string | null> {
  try {
    const r = await untilCancelled(
      octokit.rest.repos.getContent({ ...repo, path: repoPath, ref: sha, mediaType: { format: 'raw' } }),
      signal,
    );
    return rawText(r.data);
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw new RubricEvalError(
      `reading ${repoPath} at ${sha.slice(0, 7)} through the GitHub API failed: ${(err as Error).message}`,
    );
  }
}

/** A raw contents answer: text, or bytes when the media type is not a text one (Octokit's rule). */
function rawText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  throw new RubricEvalError(
    'the GitHub API answered the labels file with a directory listing or metadata, not its text',
  );
}

/**
 * The labels that gate a pull request: the file as of the PR's base commit (git when the checkout
 * has it, else the contents API at `ref=<base sha>`), never the head. The head's file is returned
 * as `proposed`: measured and shown "after merge", never gating.
 */
export function labelsAtBase(o: {
  baseSha: string | null;
  workspace: string;
  workingDirectory: string;
  octokit: Octokit | null;
  repo: Repo | null;
  signal: AbortSignal;
}): LabelsReader {
  const checkout = new Workspace(o.workspace);
  return async (file) => {
    const abs = path.resolve(o.workingDirectory, file);
    const rel = path.relative(o.workingDirectory, abs).split(path.sep).join('/');
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new RubricEvalError(`${file} is outside the working directory: refused`);
    const proposed: LabelsAt = {
      // The checkout's one reader: a link out of the workspace is refused, naming the file.
      text: checkout.has(abs) ? checkout.readText(abs, MAX_LABELS_BYTES) : null,
      from: 'pull request head',
    };
    if (!o.baseSha)
      throw new RubricEvalError(
        'the pull_request event names no base commit: the labels that gate cannot be read',
      );
    const from = `base ${o.baseSha.slice(0, 7)}`;
    const shown = await gitShow(o.workingDirectory, o.baseSha, rel);
    if ('found' in shown) return { gating: { text: shown.found ? shown.text : null, from }, proposed };
    if (!o.octokit || !o.repo)
      throw new RubricEvalError(
        `the checkout lacks the base commit ${o.baseSha.slice(0, 7)} and no github-token is set to read ${file} there`,
      );
    const repoPath = path.relative(o.workspace, abs).split(path.sep).join('/');
    const text = await apiShow(o.octokit, o.repo, o.baseSha, repoPath, o.signal);
    return { gating: { text, from: `${from} (GitHub API)` }, proposed };
  };
}
