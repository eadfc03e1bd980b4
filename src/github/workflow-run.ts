import { RubricEvalError } from '../core/errors.js';
import { resultsFromZip } from '../baseline/artifact-zip.js';
import { excerpt } from '../core/diagnostics.js';
import { MAX_BUNDLE_BYTES, RECORD_ARTIFACT } from '../pipeline/record-bundle.js';
import { downloadZip } from './baseline-artifact.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { type Octokit, type Repo } from './client.js';
import { boundedPages } from './pages.js';
import { MAX_SHARDS } from '../config/shard-spec.js';

/** The record run that triggered this `workflow_run` job, as GitHub's event names it. */
export interface RecordRun {
  id: number;
  headSha: string;
  headBranch: string | null;
  /** The owner of the repository the pull request comes from (a fork's owner for a fork). */
  headOwner: string | null;
  /** That repository's full name (`owner/name`): only a pull request from it is the run's. */
  headRepository: string | null;
  conclusion: string | null;
  /** The record run's page. */
  url: string | null;
}

/** The pull request the judge stage reports on, as the API describes it (never as the bundle does). */
export interface RunPullRequest {
  number: number;
  title: string;
  body: string | null;
  head: { sha: string; ref?: string; repo?: { full_name?: string } | null };
  base?: { sha?: string; ref?: string };
  state?: string;
}

/**
 * Whether `p` is the run's pull request: open, from the run's head repository and branch, at
 * the run's commit. Anything less would let a pull request someone else opened (then closed) at
 * the same commit, or another fork's branch of that name, take over or block this one's status.
 */
export function isRunPullRequest(p: RunPullRequest, run: RecordRun): boolean {
  return (
    p.state === 'open' &&
    p.head?.sha?.toLowerCase() === run.headSha &&
    !!run.headRepository &&
    p.head.repo?.full_name?.toLowerCase() === run.headRepository.toLowerCase() &&
    !!run.headBranch &&
    p.head.ref === run.headBranch
  );
}

const SHA = /^[0-9a-f]{40}$/i;

/** The `workflow_run` event's run, or why this is not a judge stage's event. */
export function recordRunOf(
  payload: unknown,
  serverUrl: string | null,
  repo: Repo | null,
): RecordRun | { error: string } {
  const run = (payload as { workflow_run?: Record<string, unknown> } | null)?.workflow_run;
  if (!run || typeof run !== 'object')
    return {
      error:
        'stage judge runs on `workflow_run` (types: [completed]) of the record workflow; this event has no workflow_run',
    };
  const id = run.id;
  const headSha = run.head_sha;
  if (typeof id !== 'number' || !Number.isInteger(id) || typeof headSha !== 'string' || !SHA.test(headSha))
    return { error: 'the workflow_run event has no valid run id or head_sha' };
  const headRepo = run.head_repository as { full_name?: unknown; owner?: { login?: unknown } } | undefined;
  const owner = headRepo?.owner?.login;
  const fullName = headRepo?.full_name;
  return {
    id,
    headSha: headSha.toLowerCase(),
    headBranch: typeof run.head_branch === 'string' ? run.head_branch : null,
    headOwner: typeof owner === 'string' ? owner : null,
    headRepository: typeof fullName === 'string' ? fullName : null,
    conclusion: typeof run.conclusion === 'string' ? run.conclusion : null,
    url: repo ? `${serverUrl ?? 'https://github.com'}/${repo.owner}/${repo.repo}/actions/runs/${id}` : null,
  };
}

/**
 * The pull request whose head is the run's commit, found through the API: the commit's pull
 * requests, else the open ones from the head owner's branch (a fork's commit is not always
 * linked). Only an open one from the run's head repository and branch whose head is exactly that
 * commit counts (isRunPullRequest), and only one may.
 */
export async function findRunPullRequest(
  octokit: Octokit,
  repo: Repo,
  run: RecordRun,
  signal: AbortSignal,
): Promise<{ pr: RunPullRequest } | { error: string }> {
  const matching = (list: RunPullRequest[]) => list.filter((p) => isRunPullRequest(p, run));
  try {
    const byCommit = await untilCancelled(
      octokit.request('GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', {
        ...repo,
        commit_sha: run.headSha,
        per_page: 100,
        request: { signal },
      }),
      signal,
    );
    let found = matching(byCommit.data as unknown as RunPullRequest[]);
    if (found.length === 0 && run.headOwner && run.headBranch) {
      const byHead = await untilCancelled(
        octokit.rest.pulls.list({
          ...repo,
          state: 'open',
          head: `${run.headOwner}:${run.headBranch}`,
          per_page: 100,
          request: { signal },
        }),
        signal,
      );
      found = matching(byHead.data as unknown as RunPullRequest[]);
    }
    if (found.length === 1) return { pr: found[0]! };
    if (found.length > 1)
      return {
        error: `${found.length} pull requests have commit ${run.headSha.slice(0, 7)} as their head (#${found.map((p) => p.number).join(', #')}): not judged`,
      };
    return {
      error: `no open pull request has commit ${run.headSha.slice(0, 7)} as its head (it may have moved on or closed)`,
    };
  } catch (err) {
    return {
      error: `looking up the pull request of commit ${run.headSha.slice(0, 7)} failed (${describeError(err)})`,
    };
  }
}

/** One record bundle's text, and the artifact it came in. */
export interface DownloadedBundle {
  artifact: string;
  text: string;
}

/**
 * What the judge stage downloads of all the run's bundles together: a matrix of shards each
 * within MAX_BUNDLE_BYTES could otherwise add up to gigabytes.
 */
export const MAX_BUNDLES_BYTES = 2 * MAX_BUNDLE_BYTES;

/** `rubric-eval-record`, or a shard's `rubric-eval-record-<suffix>` (names GitHub allows). */
const isRecordArtifact = (name: string) =>
  name === RECORD_ARTIFACT || (name.startsWith(`${RECORD_ARTIFACT}-`) && name.length <= 200);

/**
 * The record bundles' texts from the run's `rubric-eval-record` artifact, or from one artifact
 * per shard (`rubric-eval-record-1`, ...): listed through the Actions API, downloaded (the 302
 * to storage followed without the token), unzipped within MAX_BUNDLE_BYTES each and
 * MAX_BUNDLES_BYTES together. Never throws: a reason instead. An expired one is an error: the
 * judge stage never judges part of a run.
 */
export async function downloadRecordBundles(
  octokit: Octokit,
  repo: Repo,
  run: RecordRun,
  recordFileName: string,
  signal: AbortSignal,
  limits = { each: MAX_BUNDLE_BYTES, together: MAX_BUNDLES_BYTES },
): Promise<{ bundles: DownloadedBundle[] } | { error: string }> {
  const listed = await listRecordArtifacts(octokit, repo, run, signal);
  if ('error' in listed) return listed;
  const named = listed.artifacts;
  if (named.length === 0)
    return { error: `the record run #${run.id} uploaded no ${RECORD_ARTIFACT} artifact` };
  if (named.length > MAX_SHARDS)
    return {
      error: `the record run #${run.id} uploaded ${named.length} record artifacts, more than ${MAX_SHARDS} shards`,
    };
  const expired = named.filter((a) => a.expired);
  if (expired.length > 0)
    return {
      error: `the record run's ${expired.map((a) => excerpt(a.name)).join(', ')} artifact${expired.length === 1 ? ' has' : 's have'} expired; re-run the record workflow`,
    };
  const bundles: DownloadedBundle[] = [];
  let left = limits.together;
  for (const a of [...named].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.id - y.id))) {
    if (left <= 0)
      return {
        error: `the record run's bundles are over ${limits.together} bytes together (at ${excerpt(a.name)})`,
      };
    const cap = Math.min(limits.each, left);
    const got = await downloadOne(octokit, repo, a, recordFileName, cap, signal);
    if ('error' in got)
      return cap < limits.each
        ? {
            error: `${got.error} (what was left of the ${limits.together} bytes the run's bundles may take together)`,
          }
        : got;
    left -= Buffer.byteLength(got.text, 'utf8');
    bundles.push({ artifact: a.name, text: got.text });
  }
  return { bundles };
}

interface ListedArtifact {
  id: number;
  name: string;
  expired: boolean;
}

async function listRecordArtifacts(
  octokit: Octokit,
  repo: Repo,
  run: RecordRun,
  signal: AbortSignal,
): Promise<{ artifacts: ListedArtifact[] } | { error: string }> {
  try {
    const pages = await untilCancelled(
      boundedPages<ListedArtifact>(
        octokit,
        octokit.rest.actions.listWorkflowRunArtifacts as never,
        { ...repo, run_id: run.id, request: { signal } },
        // A 256-shard matrix whose jobs upload other artifacts too (logs, JUnit) fits with room.
        { maxPages: 20 },
      ),
      signal,
    );
    if (pages.stopped) return { error: `listing the record run's artifacts stopped: ${pages.stopped}` };
    return { artifacts: pages.items.filter((a) => typeof a.name === 'string' && isRecordArtifact(a.name)) };
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 403)
      return {
        error:
          "GitHub refused listing the record run's artifacts (HTTP 403): grant `permissions: actions: read`",
      };
    return { error: `listing the record run's artifacts failed (${describeError(err)})` };
  }
}

async function downloadOne(
  octokit: Octokit,
  repo: Repo,
  a: ListedArtifact,
  recordFileName: string,
  cap: number,
  signal: AbortSignal,
): Promise<{ text: string } | { error: string }> {
  const name = excerpt(a.name);
  let zip: Uint8Array;
  try {
    zip = await untilCancelled(downloadZip(octokit, repo, a.id, signal, cap), signal);
  } catch (err) {
    return { error: `downloading the ${name} artifact #${a.id} failed (${excerpt(describeError(err))})` };
  }
  const file = resultsFromZip(zip, recordFileName, cap);
  return 'error' in file ? { error: `${name} artifact #${a.id}: ${file.error}` } : { text: file.text };
}

/** Suite files are read up to this size, as suites from disk are. */
const MAX_HEAD_FILE_BYTES = 10 * 1024 * 1024;

/**
 * The pull request head's version of files, read through the contents API at the head commit:
 * data for the judge stage's own answers, never run. A file the head does not have is absent.
 */
export async function readHeadFiles(
  octokit: Octokit,
  repo: Repo,
  sha: string,
  paths: string[],
  repoPath: (p: string) => string,
  signal: AbortSignal,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of paths) {
    let data: unknown;
    try {
      const r = await untilCancelled(
        octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
          ...repo,
          path: repoPath(p),
          ref: sha,
          mediaType: { format: 'raw' },
          request: { signal },
        }),
        signal,
      );
      data = r.data;
    } catch (err) {
      if ((err as { status?: number }).status === 404) continue;
      throw err;
    }
    const text =
      typeof data === 'string' ? data : data instanceof ArrayBuffer ? new TextDecoder().decode(data) : null;
    if (text === null) throw new RubricEvalError(`the contents API gave no file for ${p}`);
    if (Buffer.byteLength(text) > MAX_HEAD_FILE_BYTES)
      throw new RubricEvalError(`${p} at ${sha.slice(0, 7)} is over ${MAX_HEAD_FILE_BYTES} bytes`);
    out.set(p, text);
  }
  return out;
}
