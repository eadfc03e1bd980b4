import { WriteStream } from 'node:tty';
import { styleText } from 'node:util';
import { type CaseResult, type RunResults, type SuiteResult } from '../core/results.js';
import { formatCheckerCounts } from '../checker/verdict.js';
import { changeCounts, changeWord, scoreWithDelta } from './baseline.js';
import { checklistMet, rangeScores, whyNot } from './case-reason.js';
import { passRateLine } from '../config/pass-rate-line.js';
import { budgetLine, skippedLines } from './gate-lines.js';
import { belowFloorLines, calibrationLine, PLAIN } from './calibration.js';
import { bounded } from './inert.js';
import { effectText } from './effect.js';
import { notACommand, terminalSafe } from './terminal-text.js';
import { judgeSplit, samplesNote } from './samples.js';
import { inconclusiveCount, passRateText, repeatsNote } from './repeats.js';

export interface Style {
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const plain: Style = { green: (s) => s, yellow: (s) => s, red: (s) => s, dim: (s) => s, bold: (s) => s };
// Whether to colour is decided by colourWanted; once decided, Node styles whatever the stream.
const styled = (format: 'green' | 'yellow' | 'red' | 'dim' | 'bold') => (s: string) =>
  styleText(format, s, { validateStream: false });
const colours: Style = {
  green: styled('green'),
  yellow: styled('yellow'),
  red: styled('red'),
  dim: styled('dim'),
  bold: styled('bold'),
};

/**
 * Node's own rule for colour: a terminal that has colours, unless `NO_COLOR`, `NODE_DISABLE_COLORS`
 * or `TERM=dumb` say no; `FORCE_COLOR` wins over all of them, even when the output is not a
 * terminal (`FORCE_COLOR=0` turns colour off).
 */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.FORCE_COLOR === undefined && stream.isTTY !== true) return false;
  // FORCE_COLOR already wins in Node's rule; without the others Node does not warn that it did.
  const asked = { ...env };
  if (asked.FORCE_COLOR !== undefined) {
    delete asked.NO_COLOR;
    delete asked.NODE_DISABLE_COLORS;
  }
  return WriteStream.prototype.hasColors(asked);
}

/** The style for a stream and environment: colours or plain text. */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return colourWanted(stream, env) ? colours : plain;
}

function paint(style: Style, verdict: string, text = verdict): string {
  if (verdict === 'pass') return style.green(text);
  if (verdict === 'borderline' || verdict === 'inconclusive') return style.yellow(text);
  return style.red(text);
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** One case's row, and its reasons under it when it did not pass. */
function caseLines(results: RunResults, c: CaseResult, idWidth: number, style: Style): string[] {
  const extra = [
    passRateText(c) ? `passed ${passRateText(c)}` : '',
    checklistMet(c) ? `checklist ${checklistMet(c)}` : '',
    rangeScores(c) ?? '',
    judgeSplit(c) ?? '',
  ]
    .filter(Boolean)
    .join('  ');
  const change = changeWord(c);
  const out = [
    `  ${paint(style, c.verdict, pad(c.verdict, 10))} ${results.baseline ? pad(scoreWithDelta(c), 10) : c.score.toFixed(2)}  ${pad(c.id, idWidth)}  ${change ? `${paint(style, /broken|regressed/.test(change) ? 'fail' : change === 'still failing' ? 'borderline' : 'pass', change)}  ` : ''}${style.dim(extra)}`,
  ];
  if (c.verdict !== 'pass')
    for (const line of whyNot(c).slice(0, 6)) out.push(style.dim(`      ${bounded(line, 300)}`));
  return out;
}

// Inconclusive cases first (README "Repeats"), then the worst.
const RANK = { inconclusive: -1, error: 0, fail: 1, borderline: 2, pass: 3, skipped: 4 } as const;

/**
 * A suite: its cases that need a look first (errors, failures, borderline, and passes the PR
 * regressed), worst first; then the passes folded into one line (`+ 297 passing`), or listed with
 * `verbose`; skipped cases are counted under the run, never listed one by one.
 */
function suiteLines(results: RunResults, s: SuiteResult, style: Style, verbose: boolean): string[] {
  const needsLook = (c: CaseResult) =>
    c.verdict !== 'pass' && c.verdict !== 'skipped' ? true : c.baseline?.change === 'regressed';
  const shown = verbose ? s.cases.filter((c) => c.verdict !== 'skipped') : s.cases.filter(needsLook);
  if (!verbose) shown.sort((a, b) => RANK[a.verdict] - RANK[b.verdict] || a.score - b.score);
  const folded = s.cases.filter((c) => c.verdict === 'pass' && !shown.includes(c)).length;
  const idWidth = Math.min(48, Math.max(4, ...shown.map((c) => c.id.length)));
  const out = [style.bold(s.path), ...shown.flatMap((c) => caseLines(results, c, idWidth, style))];
  if (folded > 0) out.push(style.green(`  + ${folded} passing`));
  const skipped = s.cases.filter((c) => c.verdict === 'skipped').length;
  if (skipped > 0) out.push(style.yellow(`  ${skipped} skipped`));
  return out;
}

export interface TerminalOptions {
  /** List every case, passes included (`--verbose`). */
  verbose?: boolean;
}

/** The report as a terminal table (the CLI's default format): failures first, passes folded. */
export function renderTerminal(input: RunResults, style: Style = plain, opts: TerminalOptions = {}): string {
  // Everything printed from the results is one plain bounded line, decided here once.
  const results = terminalSafe(input);
  const out: string[] = [];
  if (results.errors.length > 0) {
    out.push(style.red(style.bold('Invalid input; nothing was judged:')));
    for (const e of results.errors) out.push(`  ${e}`);
    out.push('');
  }
  if (results.rubric) {
    const r = results.rubric;
    out.push(
      style.bold(`Rubric ${r.title ? `${r.title} (${r.path})` : r.path}: `) +
        paint(style, r.verdict) +
        (formatCheckerCounts(r.counts) ? style.dim(`  ${formatCheckerCounts(r.counts)}`) : ''),
    );
    for (const g of r.gates)
      out.push(
        `  ${paint(style, g.verdict, g.verdict === 'pass' ? 'PASS' : 'FAIL')}  gate  ${g.command}${g.timed_out ? ' (timed out)' : g.verdict === 'fail' ? ` (exit ${g.exit_code})` : ''}`,
      );
    for (const c of r.checks) {
      // A criterion the judge never saw (no subject, an error) says so rather than a bare `?`.
      const mark = c.satisfied === null ? ' -- ' : c.satisfied ? 'PASS' : 'FAIL';
      const unjudged = c.satisfied === null ? style.dim(' (not judged)') : '';
      out.push(
        `  ${c.satisfied ? style.green(mark) : c.kind === 'nice' ? style.yellow(mark) : style.red(mark)}  ${c.id.padEnd(7)} ${c.text}${unjudged}${c.satisfied === false && c.reasoning ? style.dim(` — ${c.reasoning}`) : ''}`,
      );
    }
    if (r.error) out.push(style.red(`  error: ${r.error}`));
    if (r.feedback) out.push(style.dim(`  feedback: ${r.feedback}`));
    out.push('');
  }
  for (const s of results.suites) out.push(...suiteLines(results, s, style, opts.verbose ?? false), '');
  for (const line of skippedLines(results)) out.push(style.yellow(line));
  for (const p of results.pass_rates ?? []) out.push(paint(style, p.met ? 'pass' : 'fail', passRateLine(p)));
  const budget = budgetLine(results);
  if (budget) out.push(style.dim(budget));
  if (results.baseline) {
    const b = results.baseline;
    out.push(
      b.in_checkout
        ? `${style.bold('vs file in this PR')} ${b.file ?? ''}: ${changeCounts(results)}`
        : `${style.bold('vs base')} ${b.commit ? b.commit.slice(0, 7) : (b.file ?? '')}: ${changeCounts(results)}`,
    );
    for (const k of b.removed.slice(0, 20)) out.push(style.dim(`  removed  ${k}`));
    if (b.removed.length > 20) out.push(style.dim(`  … and ${b.removed.length - 20} more removed`));
    for (const line of effectText(results)) out.push(style.bold(line));
  } else if (results.baseline_note) out.push(style.dim(results.baseline_note));
  if (results.calibration) {
    out.push(style.bold(calibrationLine(results.calibration, PLAIN)));
    for (const line of belowFloorLines(results.calibration, PLAIN)) out.push(style.dim(`  ${line}`));
  }
  const c = results.counts;
  const u = results.usage;
  out.push(
    `${style.bold('Verdict:')} ${paint(style, results.verdict, results.verdict.toUpperCase())}  score ${results.score.toFixed(2)}  ` +
      `(${c.pass} pass · ${c.borderline} borderline · ${c.fail} fail${c.error ? ` · ${c.error} error` : ''}${c.skipped ? ` · ${c.skipped} skipped` : ''}${inconclusiveCount(c)})${results.partial ? style.red('  PARTIAL: cancelled') : ''}`,
  );
  out.push(
    style.dim(
      `${u.judge_calls} judge calls${u.cached_calls ? ` (+${u.cached_calls} cached)` : ''}${samplesNote(results) ? ` · ${samplesNote(results)}` : ''}${repeatsNote(results) ? ` · ${repeatsNote(results)}` : ''} · ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens${u.cost_usd !== null ? ` · ≈ $${u.cost_usd.toFixed(4)}` : ''} · ${(results.duration_ms / 1000).toFixed(1)} s`,
    ),
  );
  return out.join('\n').split('\n').map(notACommand).join('\n') + '\n';
}
