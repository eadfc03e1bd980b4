import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { type Subject } from '../judge/prompts.js';
import { COMMENT_MARKER } from '../report/history.js';
import { subjectFromDiff } from '../subject.js';

export type Octokit = ReturnType<typeof getOctokit>;

/**
 * Octokit against GITHUB_API_URL (getOctokit reads it), retrying 5xx with backoff and waiting
 * out primary and secondary rate limits a couple of times before giving up.
 */
export function createOctokit(token: string, warn: (m: string) => void): Octokit {
  return getOctokit(
    token,
    {
      retry: { retries: 3 },
      throttle: {
        onRateLimit: (
          retryAfter: number,
          options: { method: string; url: string },
          _o: unknown,
          retryCount: number,
        ) => {
          warn(`GitHub rate limit on ${options.method} ${options.url}; retrying in ${retryAfter} s`);
          return retryCount < 2;
        },
        onSecondaryRateLimit: (
          retryAfter: number,
          options: { method: string; url: string },
          _o: unknown,
          retryCount: number,
        ) => {
          warn(
            `GitHub secondary rate limit on ${options.method} ${options.url}; retrying in ${retryAfter} s`,
          );
          return retryCount < 2;
        },
      },
    },
    retry,
    throttling,
  );
}

export interface Repo {
  owner: string;
  repo: string;
}

export interface ExistingComment {
  id: number;
  body: string;
  html_url: string;
}

/** Our sticky comment: the first comment whose first line is the marker, over all pages. */
export async function findStickyComment(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
): Promise<ExistingComment | null> {
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  for await (const page of pages) {
    for (const c of page.data) {
      if (c.body && c.body.split('\n', 1)[0]!.trim() === COMMENT_MARKER)
        return { id: c.id, body: c.body, html_url: c.html_url };
    }
  }
  return null;
}

export async function upsertComment(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
  body: string,
  mode: 'update' | 'new',
  existing: ExistingComment | null,
): Promise<string> {
  if (mode === 'update' && existing) {
    const r = await octokit.rest.issues.updateComment({ ...repo, comment_id: existing.id, body });
    return r.data.html_url;
  }
  const r = await octokit.rest.issues.createComment({ ...repo, issue_number: issueNumber, body });
  return r.data.html_url;
}

/** The pull request as the checker's subject: title, body, changed files and the unified diff. */
export async function pullRequestSubject(
  octokit: Octokit,
  repo: Repo,
  pullNumber: number,
  title: string,
  body: string,
): Promise<Subject> {
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
    ...repo,
    pull_number: pullNumber,
    per_page: 100,
  });
  let diff: string;
  try {
    const r = await octokit.rest.pulls.get({
      ...repo,
      pull_number: pullNumber,
      mediaType: { format: 'diff' },
    });
    diff = r.data as unknown as string;
  } catch {
    // Very large diffs are refused by the diff media type; the per-file patches still come.
    diff = files
      .map(
        (f) => `diff --git a/${f.filename} b/${f.filename}\n${f.patch ?? '(binary or too large to show)'}\n`,
      )
      .join('');
  }
  const s = subjectFromDiff('pull_request', title, body, typeof diff === 'string' ? diff : '');
  // The file list comes from the API (complete even when the diff was trimmed).
  return { ...s, files: files.map((f) => `${f.filename} (${f.status}, +${f.additions} −${f.deletions})`) };
}

/** Is this error GitHub refusing us for want of permission (fork PR, read-only token)? */
export function isPermissionError(err: unknown): boolean {
  const status = (err as { status?: number }).status;
  return status === 403 || status === 404;
}
