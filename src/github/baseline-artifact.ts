import { resultsFromZip } from '../baseline/artifact-zip.js';
import { type BaselineFinder, type FoundBaseline } from '../baseline/load.js';
import { MAX_RESULTS_BYTES } from '../baseline/read-results.js';
import { type BaselineConfig } from '../config/config.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { type Octokit, type Repo } from './client.js';
import { RubricEvalError } from '../core/errors.js';
import { proxiedFetch } from '../core/proxied-fetch.js';

/** How `baseline: auto` finds the base branch's results (README "Baseline: what this pull request changed"). */
export interface ArtifactQuery {
  /** `baseline-artifact`. */
  name: string;
  /** The pull request's base commit and branch. */
  baseSha: string | null;
  baseRef: string | null;
  /** `results-file`: which .json to read when the artifact holds several. */
  resultsFileName: string;
  /** GITHUB_SERVER_URL, to link the base run. */
  serverUrl: string | null;
  maxPages?: number;
  timeoutMs?: number;
  /** The run's cancellation: a cancelled run stops looking. */
  signal?: AbortSignal;
}

interface Artifact {
  id: number;
  name: string;
  expired: boolean;
  created_at?: string | null;
  expires_at?: string | null;
  workflow_run?: {
    id?: number;
    repository_id?: number;
    head_repository_id?: number;
    head_branch?: string;
    head_sha?: string;
  } | null;
}

const MAX_ARTIFACT_PAGES = 10;

/**
 * `baseline: auto` on a pull request: the base branch's artifact, looked up while the cases run.
 * The lookup never throws; whatever it finds (or why not) waits for the compare stage.
 */
export function startBaselineLookup(
  baseline: BaselineConfig,
  at: {
    octokit: Octokit | null;
    repo: Repo | null;
    base: { sha?: string; ref?: string } | undefined;
    resultsFileName: string;
    serverUrl: string | null;
    signal: AbortSignal;
  },
): BaselineFinder | undefined {
  if (baseline.mode !== 'auto') return undefined;
  const found: Promise<FoundBaseline> =
    at.octokit && at.repo
      ? findBaselineArtifact(at.octokit, at.repo, {
          name: baseline.artifact,
          baseSha: at.base?.sha ?? null,
          baseRef: at.base?.ref ?? null,
          resultsFileName: at.resultsFileName,
          serverUrl: at.serverUrl,
          signal: at.signal,
        }).catch((err: unknown) => ({ warning: `the baseline lookup failed: ${describeError(err)}` }))
      : Promise.resolve({
          warning: 'no github-token (or GITHUB_REPOSITORY) to look up the baseline artifact',
        });
  return () => found;
}

/**
 * Finds, downloads and unzips the newest usable results artifact of the base branch. Never
 * throws: every failure is a warning that says why, and the run goes on without a baseline.
 */
export async function findBaselineArtifact(
  octokit: Octokit,
  repo: Repo,
  q: ArtifactQuery,
): Promise<FoundBaseline> {
  const timeout = AbortSignal.timeout(q.timeoutMs ?? 120_000);
  const signal = q.signal ? AbortSignal.any([timeout, q.signal]) : timeout;
  const why = { timeout, cancel: q.signal };
  let artifacts: Artifact[];
  try {
    // Not left to Octokit alone: it retries an aborted call after a backoff the abort cannot cut.
    artifacts = await untilCancelled(
      listArtifacts(octokit, repo, q.name, q.maxPages ?? MAX_ARTIFACT_PAGES, signal),
      signal,
    );
  } catch (err) {
    return { warning: refusal(err, `listing the artifacts named ${q.name}`, why) };
  }
  const picked = pickArtifact(artifacts, q);
  if ('warning' in picked) return picked;
  const a = picked.artifact;
  let zip: Uint8Array;
  try {
    zip = await untilCancelled(downloadZip(octokit, repo, a.id, signal), signal);
  } catch (err) {
    return { warning: refusal(err, `downloading artifact ${a.name} #${a.id}`, why) };
  }
  const file = resultsFromZip(zip, q.resultsFileName);
  if ('error' in file) return { warning: `artifact ${a.name} #${a.id}: ${file.error}` };
  const runId = a.workflow_run?.id ?? null;
  return {
    text: file.text,
    origin: {
      source: 'artifact',
      commit: a.workflow_run?.head_sha ?? null,
      run_id: runId,
      run_url:
        runId !== null && q.serverUrl
          ? `${q.serverUrl}/${repo.owner}/${repo.repo}/actions/runs/${runId}`
          : null,
      artifact_id: a.id,
      created_at: a.created_at ?? null,
      file: `${a.name}/${file.name}`,
    },
  };
}

async function listArtifacts(
  octokit: Octokit,
  repo: Repo,
  name: string,
  maxPages: number,
  signal: AbortSignal,
): Promise<Artifact[]> {
  const all: Artifact[] = [];
  // A repository can hold thousands of artifacts: the newest come first, and ten pages is plenty.
  // Asked for page by page, not through octokit.paginate: its iterator drops `request.signal`,
  // so neither the lookup's time limit nor the run's cancel would reach the calls.
  for (let page = 1; page <= maxPages; page++) {
    const r = await octokit.rest.actions.listArtifactsForRepo({
      ...repo,
      name,
      per_page: PER_PAGE,
      page,
      request: { signal },
    });
    const items = r.data.artifacts as Artifact[];
    all.push(...items);
    if (items.length < PER_PAGE || all.length >= r.data.total_count) break;
  }
  return all;
}

const PER_PAGE = 100;

/**
 * Among live artifacts of this name made in this repository (never a fork's run on a branch of
 * the same name), the newest on the base commit, else the newest on the base branch.
 */
function pickArtifact(
  artifacts: Artifact[],
  q: Pick<ArtifactQuery, 'name' | 'baseSha' | 'baseRef'>,
  now = Date.now(),
): { artifact: Artifact } | { warning: string } {
  const ours = artifacts.filter(
    (a) =>
      a.name === q.name &&
      a.workflow_run &&
      (a.workflow_run.head_repository_id === undefined ||
        a.workflow_run.head_repository_id === a.workflow_run.repository_id),
  );
  const onBase = (a: Artifact) =>
    (q.baseSha !== null && a.workflow_run?.head_sha === q.baseSha) ||
    (q.baseRef !== null && a.workflow_run?.head_branch === q.baseRef);
  const live = (a: Artifact) => !a.expired && !(a.expires_at && Date.parse(a.expires_at) <= now);
  const time = (a: Artifact) => Date.parse(a.created_at ?? '') || 0;
  const newest = (list: Artifact[]) => list.sort((x, y) => time(y) - time(x))[0];
  const usable = ours.filter(live);
  const found =
    newest(usable.filter((a) => q.baseSha !== null && a.workflow_run?.head_sha === q.baseSha)) ??
    newest(usable.filter((a) => q.baseRef !== null && a.workflow_run?.head_branch === q.baseRef));
  if (found) return { artifact: found };
  const where = [q.baseSha && `base commit ${q.baseSha.slice(0, 7)}`, q.baseRef && `branch ${q.baseRef}`]
    .filter(Boolean)
    .join(' or ');
  const expired = newest(ours.filter((a) => onBase(a) && !live(a)));
  if (expired)
    return {
      warning: `the newest ${q.name} artifact for ${where} (#${expired.id}) has expired; run the base branch's workflow again to make a new one`,
    };
  return {
    warning: `no ${q.name} artifact from ${where || 'the base branch'} among ${artifacts.length} listed; upload the results file with actions/upload-artifact on push to the base branch, or set \`baseline: off\``,
  };
}

/**
 * The artifact's zip. GitHub answers with a redirect to a storage host: it is followed here,
 * by hand, without the token, which is for GitHub's API and nowhere else.
 */
export async function downloadZip(
  octokit: Octokit,
  repo: Repo,
  id: number,
  signal: AbortSignal,
  maxBytes = MAX_RESULTS_BYTES,
): Promise<Uint8Array> {
  const r = await octokit.request(
    'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
    {
      ...repo,
      artifact_id: id,
      archive_format: 'zip',
      request: { redirect: 'manual', signal },
    },
  );
  const status = r.status as number;
  if (status >= 300 && status < 400) {
    const location = (r.headers as Record<string, string | undefined>).location;
    if (!location) throw new RubricEvalError(`HTTP ${status} without a Location header`);
    const res = await proxiedFetch(location, { redirect: 'follow', signal });
    if (!res.ok)
      throw Object.assign(new RubricEvalError(`storage answered HTTP ${res.status}`), { status: res.status });
    return readCapped(res, maxBytes);
  }
  const data = r.data as unknown;
  if (data instanceof ArrayBuffer) {
    if (data.byteLength > maxBytes) throw new RubricEvalError(`the zip is over ${maxBytes} bytes`);
    return new Uint8Array(data);
  }
  throw new RubricEvalError(`unexpected HTTP ${status} answer for the artifact's zip`);
}

async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new RubricEvalError(`the zip is ${declared} bytes, over the limit`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new RubricEvalError(`the zip is over ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * A failed call, said so that the user knows what to change (a 403 is a missing permission).
 * Which signal fired says why a call was aborted: the run's cancel or the lookup's time limit.
 */
function refusal(err: unknown, doing: string, why: { timeout: AbortSignal; cancel?: AbortSignal }): string {
  if (why.cancel?.aborted) return `${doing} stopped: the run was cancelled`;
  if (why.timeout.aborted || (err as Error).name === 'TimeoutError') return `${doing} timed out`;
  const status = (err as { status?: number }).status;
  if (status === 403)
    return `GitHub refused ${doing} (HTTP 403): grant the workflow \`permissions: actions: read\``;
  if (status === 404) return `${doing}: not found (${describeError(err)})`;
  return `${doing} failed (${describeError(err)})`;
}
