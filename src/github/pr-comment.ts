import { type Redactor } from '../exec/redact.js';
import { parseHistory, runLine, type RunKey } from '../report/history.js';
import { renderReport } from '../report/comment-body.js';
import { type HistoryEntry, type RunResults } from '../core/results.js';
import { describeError, isPermissionError, untilCancelled } from './call-outcome.js';
import { type Octokit, type Repo } from './client.js';
import { type Identity, tokenIdentity } from './identity.js';
import { listOwnComments, type OwnComment, upsertSticky } from './sticky-comment.js';

/** Everything the action needs to read and write its comment on one pull request. */
export interface PullRequestSurface {
  octokit: Octokit;
  repo: Repo;
  number: number;
  me: Identity | null;
  run: RunKey | null;
  mode: 'update' | 'new';
  warn: (m: string) => void;
  /** The run's cancel: every wait on GitHub here ends with it. */
  signal: AbortSignal;
}

/**
 * The pull request's comment surface, or null when there is nothing to write on: no pull
 * request, no token or repository, or `comment: off`. Only `update` edits, so only it asks who
 * the token is (its own comments are found by their author).
 */
export async function openSurface(o: {
  pr: { number: number } | null;
  octokit: Octokit | null;
  token: string;
  repo: Repo | null;
  run: RunKey | null;
  mode: 'update' | 'new' | 'off';
  warn: (m: string) => void;
  signal: AbortSignal;
}): Promise<PullRequestSurface | null> {
  if (!o.pr || !o.octokit || !o.repo || o.mode === 'off') return null;
  const me =
    o.mode === 'update'
      ? await untilCancelled(tokenIdentity(o.octokit, o.token, o.warn), o.signal).catch(() => null)
      : null;
  const { octokit, repo, run, mode, warn, signal } = o;
  return { octokit, repo, number: o.pr.number, me, run, mode, warn, signal };
}

/** The previous runs on this PR: they live in the action's own comment. */
export async function commentHistory(surface: PullRequestSurface | null): Promise<HistoryEntry[]> {
  const existing = surface ? await previousComment(surface) : null;
  return parseHistory(existing?.body);
}

/**
 * The report as the PR comment, when there is a surface to post it on; returns its URL, or ''
 * when none was posted. The comment is cut to GitHub's limit and points at the job summary.
 */
export async function commentReport(
  surface: PullRequestSurface | null,
  report: {
    results: RunResults;
    redactor: Redactor;
    runUrl: string | null;
    run: RunKey | null;
    /** The HTML report's file name (`report-html`): the comment says where it is. */
    reportFile?: string | null;
  },
  log: { info: (m: string) => void; warn: (m: string) => void; signal: AbortSignal },
): Promise<string> {
  if (!surface) {
    log.warn('no github-token (or GITHUB_REPOSITORY): the PR comment is skipped');
    return '';
  }
  const { results, redactor, runUrl, run } = report;
  const body = redactor.redact(
    renderReport(results, {
      runUrl,
      reportFile: report.reportFile ?? null,
      sticky: true,
      hiddenLines: run ? [runLine(run)] : [],
      fullReportHint: runUrl ? `The full report is in the [job summary](${runUrl}).` : undefined,
    }),
  );
  const url = await postReport(surface, body, log.signal);
  if (url) log.info(`PR comment: ${url}`);
  return url;
}

/** The action's newest own comment (its history lives there); null when none or unreadable. */
async function previousComment(s: PullRequestSurface): Promise<OwnComment | null> {
  if (s.mode !== 'update' || !s.me) return null;
  try {
    const { own, stopped } = await untilCancelled(
      listOwnComments(s.octokit, s.repo, s.number, s.me),
      s.signal,
    );
    if (stopped) s.warn(`the PR's comments were not all read (${stopped}); the run history may start afresh`);
    return own.at(-1) ?? null;
  } catch (err) {
    s.warn(`could not read the PR's comments (${describeError(err)}); the run history starts afresh`);
    return null;
  }
}

/**
 * Posts the report; returns the comment's URL, or '' when GitHub refused (a warning says why:
 * the verdict alone decides the check) or the run was cancelled (no GitHub call after a cancel).
 */
async function postReport(s: PullRequestSurface, body: string, signal: AbortSignal): Promise<string> {
  if (signal.aborted) {
    s.warn(
      'cancelled: the PR comment is not updated; the job summary and the results file have the partial report',
    );
    return '';
  }
  try {
    if (s.mode === 'new') {
      const r = await untilCancelled(
        s.octokit.rest.issues.createComment({ ...s.repo, issue_number: s.number, body }),
        signal,
      );
      return r.data.html_url;
    }
    const r = await untilCancelled(
      upsertSticky(s.octokit, s.repo, s.number, body, { me: s.me, run: s.run, warn: s.warn }),
      signal,
    );
    if (r.action === 'kept')
      s.warn('a newer run of this PR has already reported; its comment is left as it is');
    return r.url;
  } catch (err) {
    if (isPermissionError(err))
      s.warn(
        `GitHub refused the PR comment (${describeError(err)}): the token cannot write comments. Grant \`permissions: pull-requests: write\`; on a pull request from a fork the token is read-only, so read the job summary instead. The verdict still decides the check.`,
      );
    else s.warn(`could not post the PR comment: ${describeError(err)}. The verdict still decides the check.`);
    return '';
  }
}
