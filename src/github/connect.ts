import path from 'node:path';
import { type BaselineFinder } from '../baseline/load.js';
import { type Config, type Inputs } from '../config/config.js';

import { RubricEvalError } from '../core/errors.js';
import { type HistoryEntry } from '../core/results.js';
import { lastCommitSubject, type Subject } from '../checker/subject.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { commentHistory, openSurface, type PullRequestSurface } from './pr-comment.js';
import { type ActionRunContext } from './run-context.js';
import { type LabelsReader } from '../calibration/stage.js';
import { labelsAtBase } from './labels-at-base.js';

/** What the action's run takes from GitHub, and where it writes its comment. */
export interface GitHubSide {
  /** Where the comment goes; null when there is none to write (see openSurface). */
  surface: Promise<PullRequestSurface | null>;
  /** The earlier runs on this PR, read from the action's own comment. */
  history: Promise<HistoryEntry[]>;
  /** The pull request as the checker judges it; the last commit outside a pull request. */
  subject: () => Promise<Subject>;
  /** `baseline: auto` on a pull request (never from a shard: the merge compares the run). */
  baseline: BaselineFinder | undefined;
  /** On a pull request, the calibration labels as of its base commit (never its head). */
  calibrationLabels?: LabelsReader;
}

/**
 * Starts everything the run needs from GitHub and returns at once: who the token is, the comment
 * history and the baseline lookup go out while the suite loads and the cases run. Their answers
 * are awaited where they are read (the checker's history, the compare stage, the report), so no
 * GitHub round trip stands between the job's start and its first judge call.
 */
export function connectGitHub(
  ctx: ActionRunContext,
  i: Inputs,
  config: Config,
  o: { warn: (m: string) => void; signal: AbortSignal },
): GitHubSide {
  const { pr, repo } = ctx;
  const { warn, signal } = o;
  const token = i['github-token'] ?? '';
  // Outside a pull request nothing here calls GitHub: Octokit with its HTTP stack (a third of
  // the bundle) and the artifact unzipper are then never evaluated.
  if (!pr)
    return {
      surface: Promise.resolve(null),
      history: Promise.resolve([]),
      subject: () => lastCommitSubject(config.workingDirectory),
      baseline: undefined,
    };
  // Octokit's modules are evaluated once the event loop turns, not ahead of the suite's load,
  // which never waits on GitHub.
  const client = new Promise((next) => setImmediate(next))
    .then(() =>
      Promise.all([
        import(/* webpackMode: "eager" */ './client.js'),
        import(/* webpackMode: "eager" */ './pull-request.js'),
        import(/* webpackMode: "eager" */ './baseline-artifact.js'),
      ]),
    )
    .then(([{ createOctokit }, pull, baseline]) => ({
      octokit: token ? createOctokit(token, { warn, timeoutMs: i['github-timeout'] * 1000, signal }) : null,
      pull,
      baseline,
    }));
  // Read after the run: a failure here costs the comment, never the report or the verdict.
  const surface = client
    .then(({ octokit }) =>
      openSurface({ pr, octokit, token, repo, run: ctx.run, mode: i.comment, warn, signal }),
    )
    .catch((err: unknown) => {
      warn(`GitHub could not be set up for the PR comment (${describeError(err)}): none is written`);
      return null;
    });
  const history = surface.then(commentHistory);
  const subject = (): Promise<Subject> =>
    client.then(({ octokit, pull }) =>
      octokit && repo
        ? untilCancelled(pull.pullRequestSubject(octokit, repo, pr.number, pr.title, pr.body ?? ''), signal)
        : lastCommitSubject(config.workingDirectory),
    );
  // Started now (a mode other than `auto` makes no call), read by the compare stage at the end.
  const lookup = config.shard
    ? null
    : client.then(({ octokit, baseline }) =>
        baseline.startBaselineLookup(config.baseline, {
          octokit,
          repo,
          base: pr.base,
          resultsFileName: path.basename(config.resultsFile),
          serverUrl: ctx.serverUrl,
          signal,
        }),
      );
  const calibrationLabels: LabelsReader = (file) =>
    client.then(({ octokit }) =>
      labelsAtBase({
        baseSha: pr.base?.sha ?? null,
        workspace: ctx.workspace,
        workingDirectory: config.workingDirectory,
        octokit,
        repo,
        signal,
      })(file),
    );
  // Read later or not at all (a run that fails first): it may not end the process unread.
  lookup?.catch(() => undefined);
  const baseline: BaselineFinder | undefined = lookup
    ? async () => {
        const finder = await lookup;
        // The compare stage asks only under `baseline: auto`, where the lookup always starts.
        if (!finder) throw new RubricEvalError('no baseline lookup was started');
        return finder();
      }
    : undefined;
  return { surface, history, subject, baseline, calibrationLabels };
}
