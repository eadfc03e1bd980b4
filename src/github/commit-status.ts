import { type RunResults } from '../core/results.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { createOctokit, type Octokit, type Repo } from './client.js';

type StatusState = 'pending' | 'success' | 'failure' | 'error';

export interface CommitStatus {
  state: StatusState;
  description: string;
}

/** GitHub cuts a status description at 140 characters; ours never needs to be cut. */
const MAX_DESCRIPTION = 140;

/** How long the last status may take after a cancel: the run must still exit within 5 s. */
const AFTER_CANCEL_MS = 2500;
const CANCELLED: CommitStatus = {
  state: 'error',
  description: 'rubric-eval: cancelled before every case was judged',
};

/**
 * The judge stage's status from its results (README "The trusted stage"): `error` when nothing could be
 * judged as recorded (a bad or missing bundle, invalid base suites, a cancelled run), `failure`
 * when the check fails under `fail-on` or a case is inconclusive (an undecided case is never
 * shown as success, the README's repeats), else `success`. Only our own words and numbers go in the
 * description: nothing the pull request wrote.
 */
export function statusFromResults(results: RunResults, checkFailed: boolean): CommitStatus {
  const score = results.score.toFixed(2);
  if (results.errors.length > 0 || results.partial)
    return {
      state: 'error',
      description: results.partial
        ? CANCELLED.description
        : `rubric-eval: not judged (${results.errors.length} problem${results.errors.length === 1 ? '' : 's'}; see the run)`,
    };
  const counts = results.counts;
  const undecided = counts.inconclusive ?? 0;
  const detail =
    `${counts.pass} pass · ${counts.borderline} borderline · ${counts.fail + counts.error} fail` +
    (undecided > 0 ? ` · ${undecided} inconclusive` : '');
  return {
    state: checkFailed || undecided > 0 ? 'failure' : 'success',
    description: `${results.verdict} · score ${score} · ${detail} (base suites)`.slice(0, MAX_DESCRIPTION),
  };
}

/**
 * The judge stage's status setter for one commit. After a cancel (SIGINT, SIGTERM) the run's
 * client aborts every call, so a status left `pending` would stay so for good: the last status
 * then goes out on a client of its own, bounded by AFTER_CANCEL_MS, and is always `error` saying
 * the run was cancelled (whatever the partial results would have said).
 */
export function commitStatusWriter(
  token: string,
  repo: Repo,
  sha: string,
  at: {
    context: string;
    targetUrl: string | null;
    timeoutMs: number;
    warn: (m: string) => void;
    signal: AbortSignal;
  },
): (status: CommitStatus) => Promise<boolean> {
  const { context, targetUrl, warn, signal } = at;
  const octokit = createOctokit(token, { warn, timeoutMs: at.timeoutMs, signal });
  return async (status) => {
    if (!signal.aborted) return setCommitStatus(octokit, repo, sha, { ...status, context, targetUrl }, at);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), AFTER_CANCEL_MS);
    try {
      const last = createOctokit(token, { warn, timeoutMs: AFTER_CANCEL_MS, signal: deadline.signal });
      const o = { warn, signal: deadline.signal };
      return await setCommitStatus(last, repo, sha, { ...CANCELLED, context, targetUrl }, o);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Sets the commit status; a refusal is a warning that names the permission (the check itself
 * still fails or passes on the verdict).
 */
async function setCommitStatus(
  octokit: Octokit,
  repo: Repo,
  sha: string,
  status: CommitStatus & { context: string; targetUrl: string | null },
  o: { warn: (m: string) => void; signal: AbortSignal },
): Promise<boolean> {
  try {
    await untilCancelled(
      octokit.rest.repos.createCommitStatus({
        ...repo,
        sha,
        state: status.state,
        context: status.context,
        description: status.description.slice(0, MAX_DESCRIPTION),
        ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
        request: { signal: o.signal },
      }),
      o.signal,
    );
    return true;
  } catch (err) {
    const code = (err as { status?: number }).status;
    o.warn(
      code === 403
        ? `GitHub refused the commit status (HTTP 403): grant the workflow \`permissions: statuses: write\``
        : `could not set the commit status ${status.state} on ${sha.slice(0, 7)}: ${describeError(err)}`,
    );
    return false;
  }
}
