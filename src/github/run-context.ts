import { existsSync, readFileSync } from 'node:fs';
import { type RunKey } from '../report/history.js';
import { type Repo } from './client.js';

/** The part of a `pull_request` event payload the action reads. */
interface PullRequestEvent {
  number: number;
  title: string;
  body: string | null;
  head: { sha: string };
  base?: { sha?: string; ref?: string };
}

/** Where and for what the action runs, as the runner's environment and event file say. */
export interface ActionRunContext {
  /** The pull request of a `pull_request` event; null on push and every other event. */
  pr: PullRequestEvent | null;
  /** From GITHUB_REPOSITORY (`owner/repo`); null when unset or not of that shape. */
  repo: Repo | null;
  /** This run's page, linked from the comment; null without a repository or a run id. */
  runUrl: string | null;
  /** This run, which orders the comment writes of racing runs; null without a run id. */
  run: RunKey | null;
  /** GITHUB_WORKSPACE, else the current directory: paths in annotations are relative to it. */
  workspace: string;
  /** The commit judged: the pull request's head, else GITHUB_SHA. */
  commit: string | null;
  /** GITHUB_SERVER_URL as given (null when unset), to link the baseline's run. */
  serverUrl: string | null;
}

/**
 * The event payload at GITHUB_EVENT_PATH, read as `@actions/github` reads it; `{}` when the
 * variable is unset or names no file.
 */
export function readEventPayload(env: NodeJS.ProcessEnv): unknown {
  const file = env.GITHUB_EVENT_PATH;
  if (!file || !existsSync(file)) return {};
  return JSON.parse(readFileSync(file, { encoding: 'utf8' })) as unknown;
}

/**
 * The run's context from the environment and the event payload, read as `@actions/github`'s
 * context reads them (integers by parseInt, `owner/repo` split on `/`, links to github.com when
 * GITHUB_SERVER_URL is unset), but as a function of its arguments: no global read, any
 * environment in a test.
 */
export function actionRunContext(env: NodeJS.ProcessEnv, payload: unknown, cwd: string): ActionRunContext {
  const event =
    typeof payload === 'object' && payload !== null ? (payload as { pull_request?: unknown }) : {};
  const pr = (event.pull_request as PullRequestEvent | undefined) ?? null;
  const repo = repoOf(env.GITHUB_REPOSITORY);
  const runId = parseInt(env.GITHUB_RUN_ID ?? '', 10);
  const runAttempt = parseInt(env.GITHUB_RUN_ATTEMPT ?? '', 10);
  const hasRun = Number.isInteger(runId) && runId > 0;
  const linkServer = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    pr,
    repo,
    runUrl: repo && hasRun ? `${linkServer}/${repo.owner}/${repo.repo}/actions/runs/${runId}` : null,
    run: hasRun ? { id: runId, attempt: Number.isInteger(runAttempt) ? runAttempt : 1 } : null,
    workspace: env.GITHUB_WORKSPACE ?? cwd,
    commit: pr?.head.sha ?? env.GITHUB_SHA ?? null,
    serverUrl: env.GITHUB_SERVER_URL ?? null,
  };
}

/**
 * A `pull_request` run for a pull request from a fork: GitHub gives it no secrets (so no judge
 * key) and a read-only token. A head repository that is gone (a deleted fork) counts as a fork.
 */
export function isForkPullRequest(env: NodeJS.ProcessEnv, payload: unknown): boolean {
  if (env.GITHUB_EVENT_NAME !== 'pull_request') return false;
  const pr = (payload as { pull_request?: { head?: { repo?: unknown }; base?: { repo?: unknown } } } | null)
    ?.pull_request;
  if (!pr?.head || !('repo' in pr.head)) return false;
  const name = (r: unknown) =>
    typeof r === 'object' && r !== null ? (r as { full_name?: unknown }).full_name : undefined;
  const head = name(pr.head.repo);
  if (pr.head.repo === null) return true;
  const base = name(pr.base?.repo) ?? env.GITHUB_REPOSITORY;
  return typeof head === 'string' && typeof base === 'string' && head.toLowerCase() !== base.toLowerCase();
}

/** `owner/repo`, split as `@actions/github` splits it (the first two parts). */
function repoOf(value: string | undefined): Repo | null {
  if (!value?.includes('/')) return null;
  const [owner, repo] = value.split('/') as [string, string];
  return { owner, repo };
}
