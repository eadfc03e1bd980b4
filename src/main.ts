import * as core from '@actions/core';
import { context } from '@actions/github';
import path from 'node:path';
import { type BaselineFinder, type FoundBaseline } from './baseline/load.js';
import { type Config, configFromInputs, INPUT_NAMES, parseInputs } from './config/config.js';
import { checkFailures, failureMessage } from './config/fail-on.js';
import { findBaselineArtifact } from './github/baseline-artifact.js';
import { Redactor, secretsFromEnv } from './exec/redact.js';
import { createOctokit, type Octokit, pullRequestSubject, type Repo } from './github/client.js';
import { tokenIdentity } from './github/identity.js';
import {
  describeError,
  postReport,
  previousComment,
  type PullRequestSurface,
  untilCancelled,
} from './github/pr-comment.js';
import { ANNOTATION_LIMIT, caseAnnotations } from './report/annotations.js';
import { withLines } from './exec/redact.js';
import { changeCounts } from './report/baseline.js';
import { parseHistory, runLine, type RunKey } from './report/history.js';
import { errorLine, renderReport } from './report/markdown.js';
import { samplesNote } from './report/samples.js';
import { invalidInputResults, writeResultsFile, writeResultsOrFallback } from './report/results-file.js';
import { guardVerdict } from './exec/process-guard.js';
import { type RunResults } from './core/results.js';
import { runEvaluation, type RunOutcome } from './pipeline/run.js';
import { lastCommitSubject, type Subject } from './checker/subject.js';

interface PullRequestEvent {
  number: number;
  title: string;
  body: string | null;
  head: { sha: string };
  base?: { sha?: string; ref?: string };
}

/** The run as `@actions/github`'s context reads it from the runner's environment and event file. */
function runContext(): {
  pr: PullRequestEvent | null;
  repo: Repo | null;
  runUrl: string | null;
  run: RunKey | null;
} {
  const pr = (context.payload.pull_request as PullRequestEvent | undefined) ?? null;
  const repo = process.env.GITHUB_REPOSITORY?.includes('/') ? context.repo : null;
  const hasRun = Number.isInteger(context.runId) && context.runId > 0;
  const runUrl =
    repo && hasRun ? `${context.serverUrl}/${repo.owner}/${repo.repo}/actions/runs/${context.runId}` : null;
  const run = hasRun
    ? { id: context.runId, attempt: Number.isInteger(context.runAttempt) ? context.runAttempt : 1 }
    : null;
  return { pr, repo, runUrl, run };
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
  // After a cancel, a wait left inside Octokit (a rate-limit pause) must not hold the process open.
  if (controller.signal.aborted) process.exit(process.exitCode ?? 1);
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

  const { pr, repo, runUrl, run } = runContext();
  const warn = (m: string) => core.warning(m);
  const octokit: Octokit | null = i['github-token']
    ? createOctokit(i['github-token'], { warn, timeoutMs: i['github-timeout'] * 1000, signal })
    : null;
  const commentMode = i.comment;

  // The previous runs on this PR live in the action's own comment, found by who wrote it.
  let surface: PullRequestSurface | null = null;
  if (pr && octokit && repo && commentMode !== 'off') {
    // Only `update` edits, so only it needs to know which comments are its own.
    const me =
      commentMode === 'update'
        ? await untilCancelled(tokenIdentity(octokit, i['github-token']!, warn), signal).catch(() => null)
        : null;
    surface = { octokit, repo, number: pr.number, me, run, mode: commentMode, warn, signal };
  }
  const existing = surface ? await previousComment(surface) : null;
  const history = parseHistory(existing?.body);
  const subject = (): Promise<Subject> => {
    if (pr && octokit && repo)
      return untilCancelled(pullRequestSubject(octokit, repo, pr.number, pr.title, pr.body ?? ''), signal);
    return lastCommitSubject(workingDirectory);
  };

  const baseline = pr && !config.shard ? startBaselineLookup(config, pr, octokit, repo, signal) : undefined;

  const outcome = await evaluateOrExplain(config, {
    env: process.env,
    signal,
    subject,
    baseline,
    history,
    commit: pr?.head.sha ?? process.env.GITHUB_SHA ?? null,
    hooks: {
      info: (m) => core.info(m),
      warn: (m) => core.warning(m),
      progress: (p) => core.info(`[${p.done}/${p.total}] ${p.caseId} ${p.verdict} ${p.score.toFixed(2)}`),
      phase: (name, fn) => core.group(name, fn),
    },
  });
  const { results, redactor } = outcome;
  const hidden = run ? [runLine(run)] : [];

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
    core.warning(`could not write the job summary: ${describeError(err)}`);
  }
  // 4. The PR comment: never from a shard (the merge posts it).
  let commentUrl = '';
  if (config.shard)
    core.info(`shard ${config.shard.index}/${config.shard.total}: no comment; the merge job posts it`);
  else if (pr && commentMode !== 'off')
    commentUrl = await commentOn(surface, results, redactor, { runUrl, hidden, signal });
  // 5. Outputs.
  setOutputs(results, config.resultsFile, commentUrl);

  core.info(
    `verdict: ${results.verdict} · score ${results.score.toFixed(2)} · ${results.counts.pass} pass · ${results.counts.borderline} borderline · ${results.counts.fail} fail · ${results.counts.error} error${samplesNote(results) ? ` · ${samplesNote(results)}` : ''}`,
  );
  if (results.baseline)
    core.info(
      `vs base ${results.baseline.commit?.slice(0, 7) ?? results.baseline.file}: ${changeCounts(results)}`,
    );
  // A shard's verdict is decided by the merge (an unwritten results file has failed it above).
  if (config.shard) return;
  if (checkFailures(results, config.failOn).length > 0)
    core.setFailed(failureMessage(results, config.failOn));
}

/** The PR comment, when there is a surface to post it on; returns its URL, or '' when none was posted. */
async function commentOn(
  surface: PullRequestSurface | null,
  results: RunResults,
  redactor: RunOutcome['redactor'],
  o: { runUrl: string | null; hidden: string[]; signal: AbortSignal },
): Promise<string> {
  if (!surface) {
    core.warning('no github-token (or GITHUB_REPOSITORY): the PR comment is skipped');
    return '';
  }
  const body = redactor.redact(
    renderReport(results, {
      runUrl: o.runUrl,
      sticky: true,
      hiddenLines: o.hidden,
      fullReportHint: o.runUrl ? `The full report is in the [job summary](${o.runUrl}).` : undefined,
    }),
  );
  const url = await postReport(surface, body, o.signal);
  if (url) core.info(`PR comment: ${url}`);
  return url;
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
        }).catch((err: unknown) => ({ warning: `the baseline lookup failed: ${describeError(err)}` }))
      : Promise.resolve({
          warning: 'no github-token (or GITHUB_REPOSITORY) to look up the baseline artifact',
        });
  return () => found;
}

function annotate(
  outcome: Pick<RunOutcome, 'results' | 'diagnostics' | 'redactor'>,
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

type EvaluationIo = Parameters<typeof runEvaluation>[1];

/**
 * The engine, with a bug of ours turned into a failed run that says so in one line (in the
 * comment and the summary); the stack goes to the log only.
 */
async function evaluateOrExplain(
  config: Config,
  io: EvaluationIo,
): Promise<Pick<RunOutcome, 'results' | 'redactor' | 'diagnostics'>> {
  try {
    return await runEvaluation(config, io);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    core.error(`rubric-eval: internal error: ${errorLine(message)}`);
    core.info((err as Error).stack ?? message);
    return {
      results: invalidInputResults([`internal error: ${errorLine(message)}`]),
      redactor: new Redactor(secretsFromEnv(process.env)),
      diagnostics: [],
    };
  }
}
