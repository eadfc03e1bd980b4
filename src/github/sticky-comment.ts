import { COMMENT_MARKER, compareRuns, parseRunKey, type RunKey } from '../report/history.js';
import { type Octokit, type Repo } from './client.js';
import { type Identity, isOwnAuthor } from './identity.js';
import { boundedPages } from './pages.js';

/** A comment the action wrote: the marker on its first line and the token's identity as author. */
export interface OwnComment {
  id: number;
  body: string;
  html_url: string;
  /** The run that last wrote it (its hidden run line); null for comments that do not say. */
  run: RunKey | null;
}

export interface OwnComments {
  /** Oldest first (GitHub comment ids only grow). */
  own: OwnComment[];
  /** Why the list is incomplete, when it is (see boundedPages). */
  stopped: string | null;
}

const hasMarker = (body: string) => body.split('\n', 1)[0]!.trim() === COMMENT_MARKER;

/**
 * The action's own marker comments on a PR, over every page (bounded). A marker comment by
 * anyone else is not the action's: it is neither counted nor edited nor read for history.
 */
export async function listOwnComments(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
  me: Identity | null,
): Promise<OwnComments> {
  if (!me) return { own: [], stopped: null };
  const { items, stopped } = await boundedPages(
    octokit,
    octokit.rest.issues.listComments,
    { ...repo, issue_number: issueNumber },
    {},
  );
  const own = items
    .filter((c) => c.body && hasMarker(c.body) && isOwnAuthor(c.user, me))
    .map((c) => ({ id: c.id, body: c.body!, html_url: c.html_url, run: parseRunKey(c.body) }))
    .sort((a, b) => a.id - b.id);
  return { own, stopped };
}

export interface StickyContext {
  /** The token's identity; null when GitHub would not say (then: a new comment, nothing edited). */
  me: Identity | null;
  /** This run; null outside Actions (then runs are not ordered and the last writer wins). */
  run: RunKey | null;
  warn: (m: string) => void;
}

export interface StickyResult {
  url: string;
  /** `kept`: a newer run had already reported, so this run's older verdict was not written. */
  action: 'created' | 'edited' | 'kept';
}

/**
 * The sticky comment, converging. Edits the newest own marker comment (a 404 means it was
 * deleted: a new one is created), unless a newer run already wrote it. Then converges: runs of
 * one PR that raced may each have written; re-listing after the write, every run keeps the one
 * comment showing the newest run (deleting the duplicates of this race) and rewrites it if an
 * older run overwrote it. See README "Guarantees".
 */
export async function upsertSticky(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
  body: string,
  ctx: StickyContext,
): Promise<StickyResult> {
  if (!ctx.me)
    return { url: (await createComment(octokit, repo, issueNumber, body)).html_url, action: 'created' };
  const { own } = await listOwnComments(octokit, repo, issueNumber, ctx.me);
  const target = own.at(-1);
  if (target && isNewer(target.run, ctx.run)) return { url: target.html_url, action: 'kept' };
  // Read again just before the edit: a newer run may have written since the list.
  if (target && isNewer(await currentRun(octokit, repo, target.id), ctx.run))
    return { url: target.html_url, action: 'kept' };
  let action: StickyResult['action'] = 'edited';
  let written = target ? await editComment(octokit, repo, target.id, body) : null;
  let me = ctx.me;
  if (!written) {
    action = 'created';
    written = await createComment(octokit, repo, issueNumber, body);
    // A GitHub App token other than the workflow token writes as its own bot: learn it.
    if (written.login && written.login.toLowerCase() !== me.login.toLowerCase())
      me = { login: written.login, source: 'user-endpoint' };
  }
  const raced = { ...ctx, me, floor: target?.id ?? 0 };
  let url = await converge(octokit, repo, issueNumber, body, raced);
  // An older run's edit sent before this run's write may land after it: look again, twice,
  // and write this (newer) report back over it. Bounded: SETTLE_MS in all.
  for (const wait of ctx.run ? SETTLE_MS : []) {
    await sleep(wait);
    url = (await converge(octokit, repo, issueNumber, body, raced)) ?? url;
  }
  return { url: url ?? written.html_url, action };
}

/** When the newest run looks again after its write, in ms after the previous look. */
const SETTLE_MS = [700, 1300];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The run a comment shows now (one GET); null when it says none or is gone. */
async function currentRun(octokit: Octokit, repo: Repo, id: number): Promise<RunKey | null> {
  try {
    const r = await octokit.rest.issues.getComment({ ...repo, comment_id: id });
    return parseRunKey(r.data.body);
  } catch {
    return null;
  }
}

/** `a` was written by a later run than `b`. */
function isNewer(a: RunKey | null, b: RunKey | null): boolean {
  return a !== null && b !== null && compareRuns(a, b) > 0;
}

/** Most convergence rounds: each is one bounded list and at most one write per duplicate. */
const CONVERGE_ROUNDS = 3;

/**
 * Every own marker comment from `floor` on belongs to this race: the one showing the newest run
 * stays (by run, then by id, the same choice in every racing run), the others are deleted, and
 * when the one that stays shows an older run than this one, this run writes it again.
 */
async function converge(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
  body: string,
  ctx: StickyContext & { me: Identity; floor: number },
): Promise<string | null> {
  let url: string | null = null;
  for (let round = 0; round < CONVERGE_ROUNDS; round++) {
    const race = (await listOwnComments(octokit, repo, issueNumber, ctx.me)).own.filter(
      (c) => c.id >= ctx.floor,
    );
    const keep = race.reduce<OwnComment | null>((best, c) => (best && !ranksAbove(c, best) ? best : c), null);
    if (!keep) return url;
    url = keep.html_url;
    for (const c of race) if (c.id !== keep.id) await deleteComment(octokit, repo, c.id);
    if (!ctx.run || (keep.run && compareRuns(keep.run, ctx.run) >= 0)) return url;
    ctx.warn(
      `the PR comment showed an older run than this one (a run raced); writing this run's report again`,
    );
    if (!(await editComment(octokit, repo, keep.id, body))) return url;
  }
  return url;
}

function ranksAbove(a: OwnComment, b: OwnComment): boolean {
  const byRun = compareRuns(a.run ?? { id: -1, attempt: -1 }, b.run ?? { id: -1, attempt: -1 });
  return byRun > 0 || (byRun === 0 && a.id > b.id);
}

interface Written {
  html_url: string;
  login: string | null;
}

async function createComment(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
  body: string,
): Promise<Written> {
  const r = await octokit.rest.issues.createComment({ ...repo, issue_number: issueNumber, body });
  return { html_url: r.data.html_url, login: r.data.user?.login ?? null };
}

/** Edits a comment; null when it no longer exists (deleted since it was listed). */
async function editComment(octokit: Octokit, repo: Repo, id: number, body: string): Promise<Written | null> {
  try {
    const r = await octokit.rest.issues.updateComment({ ...repo, comment_id: id, body });
    return { html_url: r.data.html_url, login: r.data.user?.login ?? null };
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}

async function deleteComment(octokit: Octokit, repo: Repo, id: number): Promise<void> {
  try {
    await octokit.rest.issues.deleteComment({ ...repo, comment_id: id });
  } catch (err) {
    // Another racing run deleted it first: the goal is reached either way.
    if ((err as { status?: number }).status !== 404) throw err;
  }
}
