import { RubricEvalError } from '../core/errors.js';
import { resultsFromZip } from '../baseline/artifact-zip.js';
import { excerpt } from '../core/diagnostics.js';
import { MAX_BUNDLE_BYTES, RECORD_ARTIFACT } from '../pipeline/record-bundle.js';
import { downloadZip } from './baseline-artifact.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { type Octokit, type Repo } from './client.js';

/** The record run that triggered this `workflow_run` job, as GitHub's event names it. */
export interface RecordRun {
  id: number;
  headSha: string;
  headBranch: string | null;
  /** The owner of the repository the pull request comes from (a fork's owner for a fork). */
  headOwner: string | null;
  conclusion: string | null;
  /** The record run's page. */
  url: string | null;
}

/** The pull request the judge stage reports on, as the API describes it (never as the bundle does). */
export interface RunPullRequest {
  number: number;
  title: string;
  body: string | null;
  head: { sha: string };
  base?: { sha?: string; ref?: string };
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
  const headRepo = run.head_repository as { owner?: { login?: unknown } } | undefined;
  const owner = headRepo?.owner?.login;
  return {
    id,
    headSha: headSha.toLowerCase(),
    headBranch: typeof run.head_branch === 'string' ? run.head_branch : null,
    headOwner: typeof owner === 'string' ? owner : null,
    conclusion: typeof run.conclusion === 'string' ? run.conclusion : null,
    url: repo ? `${serverUrl ?? 'https://github.com'}/${repo.owner}/${repo.repo}/actions/runs/${id}` : null,
  };
}

/**
 * The pull request whose head is the run's commit, found through the API: the commit's pull
 * requests, else the open ones from the head owner's branch (a fork's commit is not always
 * linked). Only a pull request whose head is exactly that commit counts, and only one may.
 */
export async function findRunPullRequest(
  octokit: Octokit,
  repo: Repo,
  run: RecordRun,
  signal: AbortSignal,
): Promise<{ pr: RunPullRequest } | { error: string }> {
  const matching = (list: RunPullRequest[]) => list.filter((p) => p.head?.sha?.toLowerCase() === run.headSha);
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

/**
 * The record bundle's text from the run's `rubric-eval-record` artifact: listed through the
 * Actions API, downloaded (the 302 to storage followed without the token), unzipped within
 * MAX_BUNDLE_BYTES. Never throws: a reason instead.
 */
export async function downloadRecordBundle(
  octokit: Octokit,
  repo: Repo,
  run: RecordRun,
  recordFileName: string,
  signal: AbortSignal,
): Promise<{ text: string; artifactId: number } | { error: string }> {
  let artifacts: { id: number; name: string; expired: boolean }[];
  try {
    const r = await untilCancelled(
      octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', {
        ...repo,
        run_id: run.id,
        name: RECORD_ARTIFACT,
        per_page: 100,
        request: { signal },
      }),
      signal,
    );
    artifacts = (r.data as { artifacts: typeof artifacts }).artifacts;
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 403)
      return {
        error:
          "GitHub refused listing the record run's artifacts (HTTP 403): grant `permissions: actions: read`",
      };
    return { error: `listing the record run's artifacts failed (${describeError(err)})` };
  }
  const named = artifacts.filter((a) => a.name === RECORD_ARTIFACT);
  const live = named.find((a) => !a.expired);
  if (!live)
    return {
      error:
        named.length > 0
          ? `the record run's ${RECORD_ARTIFACT} artifact has expired; re-run the record workflow`
          : `the record run #${run.id} uploaded no ${RECORD_ARTIFACT} artifact`,
    };
  let zip: Uint8Array;
  try {
    zip = await untilCancelled(downloadZip(octokit, repo, live.id, signal, MAX_BUNDLE_BYTES), signal);
  } catch (err) {
    return {
      error: `downloading the ${RECORD_ARTIFACT} artifact #${live.id} failed (${excerpt(describeError(err))})`,
    };
  }
  const file = resultsFromZip(zip, recordFileName, MAX_BUNDLE_BYTES);
  if ('error' in file) return { error: `${RECORD_ARTIFACT} artifact #${live.id}: ${file.error}` };
  return { text: file.text, artifactId: live.id };
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
