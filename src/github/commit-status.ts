import { type RunResults } from '../core/results.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { type Octokit, type Repo } from './client.js';

type StatusState = 'pending' | 'success' | 'failure' | 'error';

export interface CommitStatus {
  state: StatusState;
  description: string;
}

/** GitHub cuts a status description at 140 characters; ours never needs to be cut. */
const MAX_DESCRIPTION = 140;

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
        ? 'rubric-eval: cancelled before every case was judged'
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
 * Sets the commit status; a refusal is a warning that names the permission (the check itself
 * still fails or passes on the verdict).
 */
export async function setCommitStatus(
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
