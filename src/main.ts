import * as core from '@actions/core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type BaselineFinder, type FoundBaseline } from './baseline/load.js';
import { type Config, configFromInputs, INPUT_NAMES, parseInputs } from './config.js';
import { checkFailures, failureMessage } from './fail-on.js';
import { findBaselineArtifact } from './github/baseline-artifact.js';
import {
  createOctokit,
  findStickyComment,
  isPermissionError,
  type Octokit,
  pullRequestSubject,
  type Repo,
  upsertComment,
  type ExistingComment,
} from './github/client.js';
import { type Subject } from './judge/prompts.js';
import { ANNOTATION_LIMIT, caseAnnotations } from './report/annotations.js';
import { parseHistory } from './report/history.js';
import { changeCounts } from './report/baseline.js';
import { renderReport } from './report/markdown.js';
import { samplesNote } from './report/samples.js';
import { invalidInputResults, writeResultsFile } from './report/results-file.js';
import { runEvaluation, type RunOutcome } from './run.js';
import { lastCommitSubject } from './subject.js';

interface PullRequestEvent {
  number: number;
  title: string;
  body: string | null;
  head: { sha: string };
  base?: { sha?: string; ref?: string };
}

function readEvent(): { name: string; pullRequest: PullRequestEvent | null } {
  const name = process.env.GITHUB_EVENT_NAME ?? '';
  const file = process.env.GITHUB_EVENT_PATH;
  if (!file || !existsSync(file)) return { name, pullRequest: null };
  try {
    const payload = JSON.parse(readFileSync(file, 'utf8')) as { pull_request?: PullRequestEvent };
    return { name, pullRequest: payload.pull_request ?? null };
  } catch {
    core.warning(`could not read the event file ${file}; treating this run as outside a pull request`);
    return { name, pullRequest: null };
  }
}

function repoFromEnv(): Repo | null {
  const [owner, repo] = (process.env.GITHUB_REPOSITORY ?? '').split('/');
  return owner && repo ? { owner, repo } : null;
}

/**
 * The action: the one place that talks to @actions/core. Reads and validates the inputs, runs
 * the engine, and always writes the results file, the job summary and the outputs before the
 * comment; a comment GitHub refuses is a warning, and the verdict alone decides the check.
 */
export async function run(): Promise<void> {
  const controller = new AbortController();
  const onSignal = (signal: string) => () => {
    if (!controller.signal.aborted)
      core.warning(`${signal} received: stopping; finished cases are reported and the check fails`);
    controller.abort();
  };
  process.once('SIGINT', onSignal('SIGINT'));
  process.once('SIGTERM', onSignal('SIGTERM'));
  try {
    await runAction(controller.signal);
  } catch (err) {
    core.setFailed(err instanceof Error ? err.message : `rubric-eval failed: ${String(err)}`);
  }
}

async function runAction(signal: AbortSignal): Promise<void> {
  core.info('rubric-eval: starting');
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, core.getInput(name)]));
  const parsed = parseInputs(raw);
  if ('errors' in parsed) {
    // Even now the results file says why the check failed, for steps that read it.
    const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
    const file = path.resolve(
      workspace,
      raw['working-directory'] || '.',
      raw['results-file'] || 'rubric-eval-results.json',
    );
    try {
      writeResultsFile(file, invalidInputResults(parsed.errors.map((e) => `inputs: ${e}`)));
      core.setOutput('verdict', 'fail');
      core.setOutput('results-file', file);
    } catch {
      /* the failure below says it all */
    }
    core.setFailed(`invalid inputs: ${parsed.errors.join('; ')}`);
    return;
  }
  const i = parsed.inputs;
  for (const secret of [i['judge-api-key'], i['github-token']]) if (secret) core.setSecret(secret);

  const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
  const workingDirectory = path.resolve(workspace, i['working-directory']);
  const config = configFromInputs(i, {
    workingDirectory,
    resultsFile: path.resolve(workingDirectory, i['results-file']),
  });

  const event = readEvent();
  const pr = event.pullRequest;
  const repo = repoFromEnv();
  const octokit: Octokit | null = i['github-token']
    ? createOctokit(i['github-token'], (m) => core.warning(m))
    : null;
  const runUrl =
    process.env.GITHUB_SERVER_URL && process.env.GITHUB_REPOSITORY && process.env.GITHUB_RUN_ID
      ? `${process.env.GITHUB_SERVER_URL}/${process.env.GITHUB_REPOSITORY}/actions/runs/${process.env.GITHUB_RUN_ID}`
      : null;
  const commentMode = i.comment;

  // The previous runs on this PR live in our sticky comment.
  let existing: ExistingComment | null = null;
  if (pr && octokit && repo && commentMode !== 'off') {
    try {
      existing = await findStickyComment(octokit, repo, pr.number);
    } catch (err) {
      core.warning(`could not read the PR's comments (${describe(err)}); the run history starts afresh`);
    }
  }
  const history = commentMode === 'update' ? parseHistory(existing?.body) : [];
  const subject = (): Promise<Subject> => {
    if (pr && octokit && repo) return pullRequestSubject(octokit, repo, pr.number, pr.title, pr.body ?? '');
    return lastCommitSubject(workingDirectory);
  };

  const baseline = pr ? startBaselineLookup(config, pr, octokit, repo, signal) : undefined;

  const outcome: RunOutcome = await runEvaluation(config, {
    env: process.env,
    signal,
    subject,
    history,
    baseline,
    commit: pr?.head.sha ?? process.env.GITHUB_SHA ?? null,
    hooks: {
      info: (m) => core.info(m),
      warn: (m) => core.warning(m),
      progress: (p) => core.info(`[${p.done}/${p.total}] ${p.caseId} ${p.verdict} ${p.score.toFixed(2)}`),
      phase: (name, fn) => core.group(name, fn),
    },
  });
  const { results, redactor } = outcome;

  // 1. The results file: always, first.
  try {
    writeResultsFile(config.resultsFile, results);
  } catch (err) {
    core.warning(`could not write the results file ${config.resultsFile}: ${describe(err)}`);
  }
  // 2. Annotations: validation errors, and every failed or errored case at its line.
  annotate(outcome, workspace, workingDirectory);
  // 3. The job summary: where people look on push and on fork PRs.
  try {
    await core.summary.addRaw(redactor.redact(renderReport(results, { runUrl }))).write();
  } catch (err) {
    core.warning(`could not write the job summary: ${describe(err)}`);
  }
  // 4. The sticky comment.
  let commentUrl = '';
  if (pr && commentMode !== 'off') {
    if (!octokit || !repo) core.warning('no github-token (or GITHUB_REPOSITORY): the PR comment is skipped');
    else {
      const body = redactor.redact(
        renderReport(results, {
          runUrl,
          sticky: true,
          fullReportHint: runUrl ? `The full report is in the [job summary](${runUrl}).` : undefined,
        }),
      );
      try {
        commentUrl = await upsertComment(octokit, repo, pr.number, body, commentMode, existing);
        core.info(`PR comment: ${commentUrl}`);
      } catch (err) {
        if (isPermissionError(err)) {
          core.warning(
            `GitHub refused the PR comment (${describe(err)}): the token cannot write comments. Grant \`permissions: pull-requests: write\`; on a pull request from a fork the token is read-only, so read the job summary instead. The verdict still decides the check.`,
          );
        } else
          core.warning(
            `could not post the PR comment: ${describe(err)}. The verdict still decides the check.`,
          );
      }
    }
  }
  // 5. Outputs.
  core.setOutput('verdict', results.verdict);
  core.setOutput('score', results.score.toFixed(4));
  core.setOutput('passed', String(results.counts.pass));
  core.setOutput('borderline', String(results.counts.borderline));
  core.setOutput('failed', String(results.counts.fail + results.counts.error));
  core.setOutput('results-file', config.resultsFile);
  core.setOutput('comment-url', commentUrl);

  core.info(
    `verdict: ${results.verdict} · score ${results.score.toFixed(2)} · ${results.counts.pass} pass · ${results.counts.borderline} borderline · ${results.counts.fail} fail · ${results.counts.error} error${samplesNote(results) ? ` · ${samplesNote(results)}` : ''}`,
  );
  if (results.baseline)
    core.info(
      `vs base ${results.baseline.commit?.slice(0, 7) ?? results.baseline.file}: ${changeCounts(results)}`,
    );
  if (checkFailures(results, config.failOn).length > 0)
    core.setFailed(failureMessage(results, config.failOn));
}

/**
 * `baseline: auto` on a pull request: the base branch's artifact, looked up while the cases run.
 * The lookup never throws; whatever it finds (or why not) waits for the compare stage.
 */
function startBaselineLookup(
  config: Config,
  pr: PullRequestEvent,
  octokit: Octokit | null,
  repo: Repo | null,
  signal: AbortSignal,
): BaselineFinder | undefined {
  if (config.baseline.mode !== 'auto') return undefined;
  const found: Promise<FoundBaseline> =
    octokit && repo
      ? findBaselineArtifact(octokit, repo, {
          name: config.baseline.artifact,
          baseSha: pr.base?.sha ?? null,
          baseRef: pr.base?.ref ?? null,
          resultsFileName: path.basename(config.resultsFile),
          serverUrl: process.env.GITHUB_SERVER_URL ?? null,
          signal,
        }).catch((err: unknown) => ({ warning: `the baseline lookup failed: ${describe(err)}` }))
      : Promise.resolve({
          warning: 'no github-token (or GITHUB_REPOSITORY) to look up the baseline artifact',
        });
  return () => found;
}

function annotate(outcome: RunOutcome, workspace: string, workingDirectory: string): void {
  const rel = (p: string) => {
    const abs = path.resolve(workingDirectory, p);
    return path.relative(workspace, abs).split(path.sep).join('/');
  };
  for (const d of outcome.diagnostics) {
    if (d.file === 'inputs' || d.line === 0) continue;
    const props = {
      file: rel(d.file),
      startLine: d.line,
      startColumn: d.column,
      title: `rubric-eval: ${d.rule}`,
    };
    const message = `${d.subject ? `${d.subject}: ` : ''}${d.message}`;
    if (d.severity === 'error') core.error(message, props);
    else core.warning(message, props);
  }
  // GitHub keeps 10 error annotations per step: cases get what the input errors left.
  const used = outcome.diagnostics.filter((d) => d.severity === 'error' && d.file !== 'inputs' && d.line > 0);
  for (const a of caseAnnotations(outcome.results, ANNOTATION_LIMIT - used.length)) {
    core.error(
      outcome.redactor.redact(a.message),
      a.file ? { file: rel(a.file), startLine: a.line, title: a.title } : { title: a.title },
    );
  }
}

function describe(err: unknown): string {
  const status = (err as { status?: number }).status;
  const message = err instanceof Error ? err.message : String(err);
  return status ? `HTTP ${status}: ${message.split('\n')[0]}` : message.split('\n')[0]!;
}
