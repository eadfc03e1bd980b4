import { readRegularFile } from '../core/checkout-read.js';
import { writeFileNoFollow } from '../core/safe-write.js';
import os from 'node:os';
import path from 'node:path';
import { type Diagnostic } from '../core/diagnostics.js';
import { refPathSplits } from './github-url.js';
import { type EvalSuite, type FileAttachment, type GitHubFileRef } from './types.js';
import { hasMessage, RubricEvalError } from '../core/errors.js';
import { sha256Hex } from '../core/sha256.js';
import { proxiedFetch } from '../core/proxied-fetch.js';

/** Remote files are attachments written by people: a megabyte is plenty, and bounds the download. */
export const MAX_REMOTE_BYTES = 1024 * 1024;
const TIMEOUT_MS = 30_000;
/** A ref with slashes is found by trying splits; beyond a few, the URL is more likely wrong. */
const MAX_SPLITS = 4;

export interface RemoteFileOptions {
  /** GITHUB_API_URL (GitHub Enterprise, or the fake server in tests). */
  apiUrl: string;
  /** `github-token`: needed for private repositories, and for rate limits. */
  token: string | null;
  /** Where fetched files are kept (`cache-dir`); a temporary folder when null. */
  cacheDir: string | null;
  timeoutMs?: number;
  signal?: AbortSignal;
  warn?: (message: string) => void;
}

interface CacheEntry {
  url: string;
  etag: string | null;
  text: string;
}

/** One fetch went wrong, in words a user can act on. */
class RemoteFileError extends RubricEvalError {
  override name = 'RemoteFileError';
}

/**
 * Fetches every attachment given as a GitHub URL through the GitHub REST API (contents, raw),
 * once per URL per run, and fills in its text and a local copy for CLI targets' {FILES}. Kept
 * in `cache-dir` with its ETag, so a re-run revalidates instead of downloading, and a run that
 * cannot reach the API uses the kept copy with a warning. Problems come back as diagnostics at
 * the case that names the URL: nothing is sent to a target with a file missing.
 */
export async function fetchRemoteFiles(
  suites: readonly EvalSuite[],
  opts: RemoteFileOptions,
): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  const fetched = new Map<string, Promise<{ text: string; localPath: string }>>();
  for (const suite of suites) {
    for (const c of suite.cases) {
      for (const file of remoteAttachments([...c.inputMessages, ...c.expectedMessages])) {
        const ref = file.remote!;
        if (!fetched.has(ref.url)) fetched.set(ref.url, fetchOne(ref, opts));
        try {
          const got = await fetched.get(ref.url)!;
          file.text = got.text;
          file.absPath = got.localPath;
        } catch (err) {
          diagnostics.push({
            severity: 'error',
            file: suite.path,
            line: c.pos.line,
            column: c.pos.column,
            rule: 'remote-file',
            subject: `case '${c.id}'`,
            message: (err as Error).message,
          });
        }
      }
    }
  }
  return diagnostics;
}

function remoteAttachments(messages: EvalSuite['cases'][number]['inputMessages']): FileAttachment[] {
  return messages.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'file' && p.file.remote ? [p.file] : [])),
  );
}

async function fetchOne(
  ref: GitHubFileRef,
  opts: RemoteFileOptions,
): Promise<{ text: string; localPath: string }> {
  const key = sha256Hex(ref.url, 32);
  const dir = path.join(opts.cacheDir ?? path.join(os.tmpdir(), 'rubric-eval-remote'), 'github-files', key);
  const entryFile = path.join(dir, 'entry.json');
  const cached = readEntry(entryFile, ref.url);
  const keep = (text: string): { text: string; localPath: string } => {
    const localPath = path.join(dir, path.posix.basename(ref.refAndPath));
    writeFileNoFollow(localPath, text);
    return { text, localPath };
  };
  try {
    const got = await download(ref, opts, cached?.etag ?? null);
    if (got === 'not-modified') return keep(cached!.text);
    writeFileNoFollow(
      entryFile,
      JSON.stringify({ url: ref.url, etag: got.etag, text: got.text } satisfies CacheEntry),
    );
    return keep(got.text);
  } catch (err) {
    // Offline (not refused): the copy from an earlier run is better than no run, and said so.
    if (cached && err instanceof OfflineError) {
      opts.warn?.(`${err.message}; using the copy fetched earlier`);
      return keep(cached.text);
    }
    throw err;
  }
}

function readEntry(file: string, url: string): CacheEntry | null {
  try {
    // A kept copy is at most a remote file's size in JSON (escapes can double it).
    const e = JSON.parse(readRegularFile(file, 4 * MAX_REMOTE_BYTES)) as CacheEntry;
    return e.url === url && typeof e.text === 'string' ? e : null;
  } catch {
    return null;
  }
}

class OfflineError extends RemoteFileError {
  override name = 'OfflineError';
}

/** Tries each ref/path split (a branch may contain slashes) until one is found. */
async function download(
  ref: GitHubFileRef,
  opts: RemoteFileOptions,
  etag: string | null,
): Promise<{ text: string; etag: string | null } | 'not-modified'> {
  const api = opts.apiUrl.replace(/\/+$/, '');
  const splits = refPathSplits(ref.refAndPath).slice(0, MAX_SPLITS);
  for (const split of splits) {
    const encodedPath = split.path.split('/').map(encodeURIComponent).join('/');
    const url = `${api}/repos/${ref.owner}/${ref.repo}/contents/${encodedPath}?ref=${encodeURIComponent(split.ref)}`;
    const res = await request(url, ref, opts, etag);
    if (res.status === 404) continue;
    if (res.status === 304) return 'not-modified';
    if (res.status === 401 || res.status === 403) throw refused(res, ref, opts);
    if (res.status !== 200) throw new RemoteFileError(`GitHub API answered ${res.status} for ${ref.url}`);
    return { text: await boundedText(res, ref), etag: res.headers.get('etag') };
  }
  throw new RemoteFileError(
    `${ref.url} was not found through the GitHub API (${opts.apiUrl})${opts.token ? '' : '; a private repository needs `github-token`'}`,
  );
}

async function request(
  url: string,
  ref: GitHubFileRef,
  opts: RemoteFileOptions,
  etag: string | null,
): Promise<Response> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const headers: Record<string, string> = {
    accept: 'application/vnd.github.raw',
    'x-github-api-version': '2022-11-28',
    'user-agent': 'rubric-eval',
  };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (etag) headers['if-none-match'] = etag;
  try {
    // Never follow a redirect with the token: a redirect is reported instead.
    return await proxiedFetch(url, { headers, signal, redirect: 'manual' });
  } catch (err) {
    const why = timeout.aborted
      ? `no answer within ${(opts.timeoutMs ?? TIMEOUT_MS) / 1000} s`
      : withCause(err);
    throw new OfflineError(`could not reach the GitHub API (${opts.apiUrl}) to fetch ${ref.url}: ${why}`, {
      cause: err,
    });
  }
}

function refused(res: Response, ref: GitHubFileRef, opts: RemoteFileOptions): RemoteFileError {
  const limited = res.headers.get('x-ratelimit-remaining') === '0';
  const why = limited
    ? 'the API rate limit is spent'
    : opts.token
      ? '`github-token` cannot read that repository'
      : 'no `github-token` was given';
  return new RemoteFileError(`GitHub API refused (${res.status}) ${ref.url}: ${why}`);
}

async function boundedText(res: Response, ref: GitHubFileRef): Promise<string> {
  const tooLarge = () =>
    new RemoteFileError(
      `${ref.url} is larger than ${MAX_REMOTE_BYTES / 1024 / 1024} MiB, the limit for remote files`,
    );
  if (Number(res.headers.get('content-length') ?? 0) > MAX_REMOTE_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_REMOTE_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r\n/g, '\n');
}

/** An error's message and its cause's: `fetch failed` alone names nothing. */
function withCause(err: unknown): string {
  const e = err as Error & { cause?: unknown };
  return hasMessage(e.cause) ? `${e.message}: ${e.cause.message}` : e.message;
}
