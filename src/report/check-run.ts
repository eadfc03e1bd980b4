import { type CaseResult, type GateResult, type RunResults } from '../core/results.js';
import { failingCases } from './annotations.js';
import { caseReason, whyNot } from './case-reason.js';
import { headline, renderReport, reportFileLine } from './comment-body.js';
import { bounded, inertPlain } from './inert.js';

/**
 * The check run (README "Check run"): its output and its annotations, rendered from the results.
 * The adapter (github/check-run.ts) only sends them. Every text the run did not write passes
 * through the neutraliser and the redactor here.
 */

/** GitHub takes at most 50 annotations in one create or update request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** The most a run sends: past this the summary says how many were left out. */
export const MAX_CHECK_ANNOTATIONS = 1000;
/** GitHub's limit for `output.summary` and `output.text`, in characters. */
export const CHECK_TEXT_LIMIT = 65_535;
/** An annotation's message, bounded: it points at the report, it is not the report. */
const MESSAGE_MAX = 4000;
const TITLE_MAX = 255;

/** One annotation as the Checks API takes it. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure';
  title: string;
  message: string;
}

/** Where the results' paths are in the repository. */
export interface Placement {
  /** A results path (a suite's, the rubric's; relative to `working-directory`) from the repository root. */
  repoPath(p: string): string;
  /** The line of the case's `id:` key, given its suite and the line its loader recorded. */
  idLine?(suite: string, line: number): number;
}

/**
 * One annotation per failed or errored case (worst first, at its `id:` line) and per failed
 * gate (at its bullet in the rubric file), at most `cap`; `unannotated` counts the rest.
 */
export function checkRunAnnotations(
  results: RunResults,
  redact: (text: string) => string,
  place: Placement,
  cap = MAX_CHECK_ANNOTATIONS,
): { annotations: CheckAnnotation[]; unannotated: number } {
  const all: CheckAnnotation[] = [];
  const rubric = results.rubric;
  // A rubric given inline (`agent: …`, a command) has no file to point into.
  if (rubric && /\.md$/i.test(rubric.path))
    for (const g of rubric.gates)
      if (g.verdict === 'fail') all.push(gateAnnotation(g, place.repoPath(rubric.path), redact));
  for (const { suite, c } of failingCases(results)) {
    // A case from a tests file the suite names (CSV, JSONL, YAML) has its line in that file.
    const file = c.file ?? suite;
    const line = c.line && c.line > 0 ? (place.idLine?.(file, c.line) ?? c.line) : 1;
    all.push({
      path: place.repoPath(file),
      start_line: line,
      end_line: line,
      annotation_level: 'failure',
      title: plain(c.id, TITLE_MAX, redact),
      message: plain(caseMessage(c), MESSAGE_MAX, redact),
    });
  }
  const annotations = all.slice(0, cap);
  return { annotations, unannotated: all.length - annotations.length };
}

function gateAnnotation(g: GateResult, path: string, redact: (t: string) => string): CheckAnnotation {
  const line = g.line && g.line > 0 ? g.line : 1;
  const how = g.timed_out ? 'timed out' : `exited ${g.exit_code ?? 'without a code'}`;
  const output = g.output.trim();
  return {
    path,
    start_line: line,
    end_line: line,
    annotation_level: 'failure',
    title: plain(`gate: ${g.command}`, TITLE_MAX, redact),
    message: plain(`${how}${output ? `\n${output}` : ''}`, MESSAGE_MAX, redact),
  };
}

/** The case's why-list, one reason a line, under its verdict and score. */
function caseMessage(c: CaseResult): string {
  const why = c.verdict === 'error' ? [caseReason(c)] : whyNot(c);
  const lines = why.length > 0 ? why : [caseReason(c)];
  const head = c.verdict === 'error' ? 'errored' : `failed (score ${c.score.toFixed(2)})`;
  return [head, ...lines.filter(Boolean).map((l) => `- ${l}`)].join('\n');
}

/** Redacted, neutralised and cut to `max` characters, keeping its line breaks. */
function plain(text: string, max: number, redact: (t: string) => string): string {
  const safe = inertPlain(redact(text));
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

/** `success`, `failure`, or `neutral` under `fail-on: never` (the check reports, never decides). */
export function checkConclusion(checkFailed: boolean, failOn: string): 'success' | 'failure' | 'neutral' {
  if (failOn === 'never') return 'neutral';
  return checkFailed ? 'failure' : 'success';
}

/**
 * The check run's output: the headline as the title (plain text), the comment's top as the
 * summary (with how many were not annotated), the rest of the report as the text, each within
 * GitHub's 65,535 characters.
 */
export function checkRunOutput(
  results: RunResults,
  o: {
    runUrl: string | null;
    unannotated: number;
    reportFile: string | null;
    redact: (text: string) => string;
  },
): { title: string; summary: string; text: string } {
  const c = results.counts;
  const failing = c.fail + c.error;
  const title = `rubric-eval: ${results.verdict} · score ${results.score.toFixed(2)}${failing > 0 ? ` · ${failing} failing` : ''}${results.rubric ? ` · rubric ${results.rubric.verdict}` : ''}`;
  const summaryParts = [headline(results)];
  if (o.unannotated > 0)
    summaryParts.push(
      `> [!NOTE]\n> ${o.unannotated} more failing case${o.unannotated === 1 ? '' : 's'} or gate${o.unannotated === 1 ? '' : 's'} not annotated (GitHub takes ${MAX_CHECK_ANNOTATIONS} per check run); the text below and the results file list them all.`,
    );
  if (o.reportFile) summaryParts.push(reportFileLine(o.reportFile, o.runUrl));
  const summary = within(o.redact(summaryParts.join('\n\n')), CHECK_TEXT_LIMIT);
  const text = within(
    o.redact(
      renderReport(results, {
        runUrl: o.runUrl,
        omitHeadline: true,
        limit: CHECK_TEXT_LIMIT,
        measure: (t) => t.length,
        fullReportHint: o.reportFile
          ? "The full report is the HTML file in this run's artifacts."
          : 'The full report is in the job summary and the results file.',
      }),
    ),
    CHECK_TEXT_LIMIT,
  );
  return { title: bounded(title, TITLE_MAX), summary, text };
}

/** Redaction can lengthen a text (a secret shorter than its mask): cut again if it must. */
function within(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 2)}\n…`;
}
