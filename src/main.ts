import * as core from '@actions/core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Config, configFromInputs, INPUT_NAMES, parseInputs } from './config.js';
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
import { withLines } from './exec/redact.js';
import { parseHistory } from './report/history.js';
import { renderReport } from './report/markdown.js';
import { samplesNote } from './report/samples.js';
import { invalidInputResults, writeResultsFile, writeResultsOrFallback } from './report/results-file.js';
import { guardVerdict } from './process-guard.js';
import { type RunResults } from './results.js';
import { runEvaluation, type RunOutcome, tripsFailOn } from './run.js';
import { lastCommitSubject } from './subject.js';

interface PullRequestEvent {
  number: number;
  title: string;
  body: string | null;
  head: { sha: string };
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
  const verdict = guardVerdict((m) => core.error(m));
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
  verdict.written();
}

async function runAction(signal: AbortSignal): Promise<void> {
  core.info('rubric-eval: starting');
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, core.getInput(name)]));
  const parsed = parseInputs(raw);
  if ('errors' in parsed) {
    failInvalidInputs(raw, parsed.errors);
    return;
  }
  const i = parsed.inputs;
  for (const secret of [i['judge-api-key'], i['github-token']])
    for (const part of withLines(secret ?? '')) if (part.length >= 6) core.setSecret(part);

  const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
  const workingDirectory = path.resolve(workspace, i['working-directory']);
  const config = configFromInputs(i, {
    workingDirectory,
    resultsFile: path.resolve(workingDirectory, i['results-file']),
  });

  // A results file already there (the checkout may hold one) must not outlive a run that dies:
  // a failing one stands in until this run writes its own.
  writeResultsOrFallback(
    config.resultsFile,
    invalidInputResults(['rubric-eval started but did not finish; this file is replaced when it does']),
  );

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

  let outcome: RunOutcome;
  try {
    outcome = await runEvaluation(config, {
      env: process.env,
      signal,
      subject,
      history,
      commit: pr?.head.sha ?? process.env.GITHUB_SHA ?? null,
      hooks: {
        info: (m) => core.info(m),
        warn: (m) => core.warning(m),
        progress: (p) => core.info(`[${p.done}/${p.total}] ${p.caseId} ${p.verdict} ${p.score.toFixed(2)}`),
        phase: (name, fn) => core.group(name, fn),
      },
    });
  } catch (err) {
    // A bug of ours: the results file says so in one line (the stack goes to the log via setFailed).
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
    writeResultsOrFallback(config.resultsFile, invalidInputResults([`internal error: ${why}`]));
    throw err;
  }
  const { results, redactor } = outcome;

  // 1. The results file: always, first. One that cannot be written fails the check (a shard too:
  // the merge cannot count it).
  const unwritten = writeResultsOrFallback(config.resultsFile, results);
  if (unwritten) core.setFailed(`could not write the results file ${config.resultsFile}: ${unwritten}`);
  // 2. Annotations: validation errors, and every failed or errored case at its line. A shard
  // leaves the cases to the merge, and only shard 1 repeats the validation errors.
  annotate(outcome, workspace, workingDirectory, config.shard ?? null);
  // 3. The job summary: where people look on push and on fork PRs.
  try {
    // Overwrite: this step's summary is ours alone; a gate may have written a fake report into it.
    await core.summary
      .addRaw(shardNote(results) + redactor.redact(renderReport(results, { runUrl })))
      .write({ overwrite: true });
  } catch (err) {
    core.warning(`could not write the job summary: ${describe(err)}`);
  }
  // 4. The sticky comment: never from a shard (the merge posts it).
  let commentUrl = '';
  if (config.shard)
    core.info(`shard ${config.shard.index}/${config.shard.total}: no comment; the merge job posts it`);
  else if (pr && commentMode !== 'off') {
    if (!octokit || !repo) core.warning('no github-token (or GITHUB_REPOSITORY): the PR comment is skipped');
    else
      commentUrl = await postComment(results, redactor, { octokit, repo, pr, commentMode, existing, runUrl });
  }
  // 5. Outputs.
  setOutputs(results, config.resultsFile, commentUrl);

  core.info(
    `verdict: ${results.verdict} · score ${results.score.toFixed(2)} · ${results.counts.pass} pass · ${results.counts.borderline} borderline · ${results.counts.fail} fail · ${results.counts.error} error${samplesNote(results) ? ` · ${samplesNote(results)}` : ''}`,
  );
  // A shard's verdict is decided by the merge (an unwritten results file has failed it above).
  if (config.shard) return;
  if (tripsFailOn(results.verdict, config.failOn)) core.setFailed(failureReason(results, config.failOn));
}

/** Invalid inputs: even now the results file says why the check failed, for steps that read it. */
function failInvalidInputs(raw: Record<string, string>, errors: string[]): void {
  const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
  const file = path.resolve(
    workspace,
    raw['working-directory'] || '.',
    raw['results-file'] || 'rubric-eval-results.json',
  );
  try {
    writeResultsFile(file, invalidInputResults(errors.map((e) => `inputs: ${e}`)));
    core.setOutput('verdict', 'fail');
    core.setOutput('results-file', file);
  } catch {
    /* the failure below says it all */
  }
  core.setFailed(`invalid inputs: ${errors.join('; ')}`);
}

/** A shard's summary shows a part of a run: say so before anyone reads its verdict as the run's. */
function shardNote(r: RunResults): string {
  if (!r.shard) return '';
  const ran = r.suites.reduce((n, s) => n + s.cases.length, 0);
  return `> **Shard ${r.shard.index}/${r.shard.total}**: ${ran} of the ${r.shard.planned} planned cases. The merge job reports the whole run and decides the check.\n\n`;
}

function setOutputs(results: RunResults, resultsFile: string, commentUrl: string): void {
  core.setOutput('verdict', results.verdict);
  core.setOutput('score', results.score.toFixed(4));
  core.setOutput('passed', String(results.counts.pass));
  core.setOutput('borderline', String(results.counts.borderline));
  core.setOutput('failed', String(results.counts.fail + results.counts.error));
  core.setOutput('results-file', resultsFile);
  core.setOutput('comment-url', commentUrl);
}

/** Creates or edits the sticky comment; GitHub refusing it is a warning, never the verdict. */
async function postComment(
  results: RunResults,
  redactor: RunOutcome['redactor'],
  to: {
    octokit: Octokit;
    repo: Repo;
    pr: PullRequestEvent;
    commentMode: 'update' | 'new';
    existing: ExistingComment | null;
    runUrl: string | null;
  },
): Promise<string> {
  const body = redactor.redact(
    renderReport(results, {
      runUrl: to.runUrl,
      sticky: true,
      fullReportHint: to.runUrl ? `The full report is in the [job summary](${to.runUrl}).` : undefined,
    }),
  );
  try {
    const url = await upsertComment(to.octokit, to.repo, to.pr.number, body, to.commentMode, to.existing);
    core.info(`PR comment: ${url}`);
    return url;
  } catch (err) {
    if (isPermissionError(err)) {
      core.warning(
        `GitHub refused the PR comment (${describe(err)}): the token cannot write comments. Grant \`permissions: pull-requests: write\`; on a pull request from a fork the token is read-only, so read the job summary instead. The verdict still decides the check.`,
      );
    } else
      core.warning(`could not post the PR comment: ${describe(err)}. The verdict still decides the check.`);
    return '';
  }
}

function failureReason(r: RunResults, failOn: Config['failOn']): string {
  if (r.partial)
    return `rubric-eval: ${r.shards ? 'a shard was' : 'the run was'} cancelled; the partial results fail the check`;
  if (r.errors.length > 0)
    return `rubric-eval: ${r.shards ? 'the shards do not make one valid run' : 'invalid input'} (${r.errors.length} problem${r.errors.length === 1 ? '' : 's'}): ${r.errors[0]}`;
  const bits: string[] = [];
  if (r.counts.fail) bits.push(`${r.counts.fail} failed`);
  if (r.counts.error) bits.push(`${r.counts.error} errored`);
  if (failOn === 'borderline' && r.counts.borderline) bits.push(`${r.counts.borderline} borderline`);
  if (r.rubric?.verdict === 'fail') bits.push(`rubric ${r.rubric.path} failed`);
  return `rubric-eval: ${r.verdict} (score ${r.score.toFixed(2)}): ${bits.join(', ') || 'nothing was evaluated'}`;
}

function annotate(
  outcome: RunOutcome,
  workspace: string,
  workingDirectory: string,
  shard: Config['shard'],
): void {
  const rel = (p: string) => {
    const abs = path.resolve(workingDirectory, p);
    return path.relative(workspace, abs).split(path.sep).join('/');
  };
  const diagnostics = shard && shard.index !== 1 ? [] : outcome.diagnostics;
  for (const d of diagnostics) {
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
  const used = diagnostics.filter((d) => d.severity === 'error' && d.file !== 'inputs' && d.line > 0);
  for (const a of shard ? [] : caseAnnotations(outcome.results, ANNOTATION_LIMIT - used.length)) {
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
