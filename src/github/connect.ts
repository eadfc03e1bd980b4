import path from 'node:path';
import { type BaselineFinder } from '../baseline/load.js';
import { type Config, type Inputs } from '../config/config.js';

import { type HistoryEntry } from '../core/results.js';
import { lastCommitSubject, type Subject } from '../checker/subject.js';
import { untilCancelled } from './call-outcome.js';
import { commentHistory, openSurface, type PullRequestSurface } from './pr-comment.js';
import { type ActionRunContext } from './run-context.js';
import { type LabelsReader } from '../calibration/stage.js';
import { labelsAtBase } from './labels-at-base.js';

/** What the action's run takes from GitHub, and where it writes its comment. */
export interface GitHubSide {
  /** Where the comment goes; null when there is none to write (see openSurface). */
  surface: PullRequestSurface | null;
  /** The earlier runs on this PR, read from the action's own comment. */
  history: HistoryEntry[];
  /** The pull request as the checker judges it; the last commit outside a pull request. */
  subject: () => Promise<Subject>;
  /** `baseline: auto` on a pull request (never from a shard: the merge compares the run). */
  baseline: BaselineFinder | undefined;
  /** On a pull request, the calibration labels as of its base commit (never its head). */
  calibrationLabels?: LabelsReader;
}

/**
 * Sets up everything the run needs from GitHub, in the order the calls go out: who the token
 * is, the comment history, then the baseline lookup, which runs while the cases do.
 */
export async function connectGitHub(
  ctx: ActionRunContext,
  i: Inputs,
  config: Config,
  o: { warn: (m: string) => void; signal: AbortSignal },
): Promise<GitHubSide> {
  const { pr, repo } = ctx;
  const { warn, signal } = o;
  const token = i['github-token'] ?? '';
  // Outside a pull request nothing here calls GitHub: Octokit with its HTTP stack (a third of
  // the bundle) and the artifact unzipper are then never evaluated.
  if (!pr)
    return {
      surface: null,
      history: [],
      subject: () => lastCommitSubject(config.workingDirectory),
      baseline: undefined,
    };
  const [{ createOctokit }, { pullRequestSubject }, { startBaselineLookup }] = await Promise.all([
    import(/* webpackMode: "eager" */ './client.js'),
    import(/* webpackMode: "eager" */ './pull-request.js'),
    import(/* webpackMode: "eager" */ './baseline-artifact.js'),
  ]);
  const octokit = token
    ? createOctokit(token, { warn, timeoutMs: i['github-timeout'] * 1000, signal })
    : null;
  const surface = await openSurface({
    pr,
    octokit,
    token,
    repo,
    run: ctx.run,
    mode: i.comment,
    warn,
    signal,
  });
  const history = await commentHistory(surface);
  const subject = (): Promise<Subject> =>
    octokit && repo
      ? untilCancelled(pullRequestSubject(octokit, repo, pr.number, pr.title, pr.body ?? ''), signal)
      : lastCommitSubject(config.workingDirectory);
  const baseline = !config.shard
    ? startBaselineLookup(config.baseline, {
        octokit,
        repo,
        base: pr.base,
        resultsFileName: path.basename(config.resultsFile),
        serverUrl: ctx.serverUrl,
        signal,
      })
    : undefined;
  const calibrationLabels = labelsAtBase({
    baseSha: pr.base?.sha ?? null,
    workspace: ctx.workspace,
    workingDirectory: config.workingDirectory,
    octokit,
    repo,
    signal,
  });
  return { surface, history, subject, baseline, calibrationLabels };
}
