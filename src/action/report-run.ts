import path from 'node:path';
import { type Config, fallbackResultsFile, type Inputs } from '../config/config.js';
import { checkFailure } from '../config/fail-on.js';
import * as core from '../github/workflow-commands.js';
import { describeError } from '../github/call-outcome.js';
import { commentReport, type PullRequestSurface } from '../github/pr-comment.js';
import { type ActionRunContext } from '../github/run-context.js';
import { reportCheckRun } from '../github/check-run-report.js';
import { type ReportedRun } from '../pipeline/finish.js';
import { shardLabel } from '../pipeline/shard.js';
import { stepAnnotations } from '../report/annotations.js';
import { writeJunitFile } from '../report/junit.js';
import { writeHtmlReport } from '../report/html-report.js';
import { skippedLines } from '../report/gate-lines.js';
import { invalidInputOutputs, runOutputs } from '../report/outputs.js';
import { invalidInputResults, writeResultsFile, writeResultsOrFallback } from '../report/results-file.js';
import { jobSummary, verdictLines } from '../report/step-summary.js';

// A run told to the runner: every file, annotation, summary, comment, output and the check this
// step leaves behind, whichever stage produced the run.

const warn = (m: string) => core.warning(m);
const info = (m: string) => core.info(m);

/**
 * What the step reports, in this order: the results file, the annotations, the job summary, the
 * PR comment, the outputs and the check.
 */
export async function reportRun(
  outcome: ReportedRun,
  config: Config,
  ctx: ActionRunContext,
  comment: {
    surface: PullRequestSurface | null;
    mode: Inputs['comment'];
    signal: AbortSignal;
    inputs: Inputs;
  },
): Promise<void> {
  const { results, redactor } = outcome;
  const { resultsFile, workingDirectory } = config;
  const redact = (text: string) => redactor.redact(text);
  // 1. The results file: always, first. One that cannot be written fails the check (a shard too:
  // the merge cannot count it).
  const unwritten = writeResultsOrFallback(resultsFile, results);
  if (unwritten) core.setFailed(`could not write the results file ${resultsFile}: ${unwritten}`);
  if (config.junitFile) {
    const junit = path.resolve(workingDirectory, config.junitFile);
    try {
      writeJunitFile(junit, results, redact, config.failOn);
    } catch (err) {
      core.setFailed(`could not write the JUnit file ${junit}: ${describeError(err)}`);
    }
  }
  const reportFile = writeReportHtml(outcome, config, ctx.runUrl);
  // 2. Annotations: validation problems, and every failed or errored case at its line.
  const where = { workspace: ctx.workspace, workingDirectory, shard: config.shard ?? null };
  for (const a of stepAnnotations({ ...outcome, redact }, where))
    (a.level === 'error' ? core.error : core.warning)(a.message, a.properties);
  // 3. The job summary: where people look on push and on fork PRs.
  try {
    // Overwrite: this step's summary is ours alone; a gate may have written a fake report into it.
    await core.writeJobSummary(jobSummary(results, redact, ctx.runUrl, reportFile));
  } catch (err) {
    core.warning(`could not write the job summary: ${describeError(err)}`);
  }
  // 4. The PR comment: never from a shard (the merge posts it).
  let commentUrl = '';
  if (config.shard) core.info(`${shardLabel(config.shard)}: no comment; the merge job posts it`);
  else if (ctx.pr && comment.mode !== 'off')
    commentUrl = await commentReport(
      comment.surface,
      { results, redactor, runUrl: ctx.runUrl, run: ctx.run, reportFile },
      { info, warn, signal: comment.signal },
    );
  // 4b. The check run (`check-run: true`), on the commit judged.
  await reportCheckRun(outcome, config, ctx, comment.inputs, { info, warn, signal: comment.signal });
  // 5. Outputs, the verdict in the log, and the check.
  // One output refused does not cost the rest (the verdict above all).
  for (const [name, value] of Object.entries(runOutputs(results, resultsFile, commentUrl)))
    try {
      core.setOutput(name, value);
    } catch (err) {
      core.warning(`could not write the output ${name}: ${describeError(err)}`);
    }
  for (const line of verdictLines(results)) core.info(line);
  // Skipped cases are told once per reason (a fork's run: where they get judged), never one by one.
  for (const line of skippedLines(results)) core.warning(line);
  const failure = checkFailure(results, config);
  if (failure) core.setFailed(failure);
}

/** `report-html`: the HTML report; returns its file name for the comment's line, null when none. */
function writeReportHtml(outcome: ReportedRun, config: Config, runUrl: string | null): string | null {
  if (!config.reportHtml) return null;
  const file = path.resolve(config.workingDirectory, config.reportHtml);
  try {
    writeHtmlReport(file, outcome.results, { redact: (t) => outcome.redactor.redact(t), runUrl });
    core.info(`HTML report written to ${file}`);
    return path.basename(file);
  } catch (err) {
    core.setFailed(`could not write the HTML report ${file}: ${describeError(err)}`);
    return null;
  }
}

/** Invalid inputs: even now the results file says why the check failed, for steps that read it. */
export function failInvalidInputs(raw: Record<string, string>, errors: string[], workspace: string): void {
  const file = fallbackResultsFile(raw, workspace);
  try {
    writeResultsFile(file, invalidInputResults(errors.map((e) => `inputs: ${e}`)));
    for (const [name, value] of Object.entries(invalidInputOutputs(file))) core.setOutput(name, value);
  } catch {
    /* the failure below says it all */
  }
  core.setFailed(`invalid inputs: ${errors.join('; ')}`);
}
