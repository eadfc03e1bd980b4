import {
  type CaseResult,
  countCases,
  type CheckerResult,
  type RunResults,
  type SuiteResult,
} from '../core/results.js';
import { formatCheckerCounts } from '../checker/verdict.js';
import { withThousands } from '../core/usage.js';
import {
  baselineLine,
  noBaselineLine,
  byReviewOrder,
  changeWord,
  isStillFailing,
  removedSection,
  scoreWithDelta,
} from './baseline.js';
import { COMMENT_MARKER, historyBlock } from './history.js';
import { passRateLine } from '../config/pass-rate-line.js';
import { budgetLine, skippedLines } from './gate-lines.js';
import { bounded, cell, code, codeBlock, codeCell, codeHtml, inert } from './inert.js';
import { effectMarkdown } from './effect.js';
import { trustedNote } from './trusted.js';
import { judgeSplit, samplesNote } from './samples.js';
import { caseReason, checklistMet, errorLine, rangeScores, whyNot } from './case-reason.js';
import { calibrationSection } from './calibration.js';
import { inconclusiveCount, inconclusiveFirst, passRateCell, repeatsNote } from './repeats.js';

/** GitHub refuses comments over 65,536 characters; keep a margin for the marker and history. */
export const COMMENT_LIMIT = 65_536;
/** GitHub refuses a job summary over 1 MiB, counted in UTF-8 bytes; this leaves a margin. */
const SUMMARY_LIMIT = 1_000_000;

/** How a limit is counted: the comment in characters, the job summary in UTF-8 bytes. */
export type Measure = (text: string) => number;
const characters: Measure = (text) => text.length;
export const utf8Bytes: Measure = (text) => Buffer.byteLength(text, 'utf8');

export interface RenderOptions {
  /** Link to the workflow run. */
  runUrl?: string | null;
  /** Include the marker and the hidden history block (the PR comment). */
  sticky?: boolean;
  limit?: number;
  /** Where the full report lives when the comment is cut (the job summary). */
  fullReportHint?: string;
  /** How `limit` is counted; default: characters for the comment, UTF-8 bytes otherwise. */
  measure?: Measure;
  /** Hidden lines the comment carries before its history block (which run wrote it). */
  hiddenLines?: readonly string[];
  /** Leave the headline out (the check run shows it as its title and summary). */
  omitHeadline?: boolean;
  /** The HTML report's file name (`report-html`): a line says it is in the run's artifacts. */
  reportFile?: string | null;
}

const ICON: Record<string, string> = {
  pass: '✅',
  borderline: '🟡',
  fail: '❌',
  error: '💥',
  skipped: '⏭️',
  inconclusive: '❔',
};
const icon = (v: string) => ICON[v] ?? '❔';
const score2 = (x: number) => x.toFixed(2);

const isFailing = (c: CaseResult) =>
  c.verdict === 'fail' || c.verdict === 'error' || c.verdict === 'borderline' || c.verdict === 'inconclusive';

function caseRow(c: CaseResult, withBase = false): string {
  const split = judgeSplit(c);
  const rate = passRateCell(c);
  const score = withBase ? `${rate ?? scoreWithDelta(c)} | ${changeWord(c)}` : (rate ?? score2(c.score));
  const name = c.label ? `${cell(c.label, 80)} (${codeCell(c.id, 60)})` : codeCell(c.id, 80);
  return `| ${icon(c.verdict)} | ${name}${split ? ` · _${split}_` : ''} | ${score} | ${checklistMet(c) ?? ''} | ${cell(rangeScores(c), 120)} | ${cell(caseReason(c), 200)} |`;
}

const CASE_HEADER = '| | case | score | checklist | ranges | reason |\n|---|---|---|---|---|---|';
const BASE_HEADER =
  '| | case | score | change | checklist | ranges | reason |\n|---|---|---|---|---|---|---|';

function suiteSection(s: SuiteResult, detail: number, withBase: boolean): string {
  const counts = countCases(s.cases.map((c) => c.verdict));
  const head = `### ${code(s.path)} — ${s.cases.length} case${s.cases.length === 1 ? '' : 's'}: ${counts.pass} pass · ${counts.borderline} borderline · ${counts.fail} fail${counts.error ? ` · ${counts.error} error` : ''}${counts.skipped ? ` · ${counts.skipped} skipped` : ''}${inconclusiveCount(counts)}`;
  // Failures first: they are what a reviewer came for (inconclusive cases before them: README "Repeats").
  const order = { inconclusive: -1, error: 0, fail: 1, borderline: 2, pass: 3, skipped: 4 };
  // With a baseline, what the PR broke or regressed leads, and failures it inherited fold apart.
  const attention = (c: CaseResult) =>
    withBase ? (isFailing(c) && !isStillFailing(c)) || c.baseline?.change === 'regressed' : isFailing(c);
  const failing = s.cases
    .filter(attention)
    .sort(
      (a, b) =>
        inconclusiveFirst(a, b) ||
        byReviewOrder(a, b) ||
        order[a.verdict] - order[b.verdict] ||
        a.score - b.score,
    );
  const still = withBase ? s.cases.filter(isStillFailing) : [];
  const passing = s.cases.filter(
    (c) => !attention(c) && !(withBase && isStillFailing(c)) && c.verdict !== 'skipped',
  );
  const header = withBase ? BASE_HEADER : CASE_HEADER;
  const row = (c: CaseResult) => caseRow(c, withBase);
  const parts = [head];
  const maxFailingRows = detail >= 2 ? failing.length : detail === 1 ? 50 : 10;
  if (failing.length > 0) {
    parts.push(`${header}\n${failing.slice(0, maxFailingRows).map(row).join('\n')}`);
    if (failing.length > maxFailingRows)
      parts.push(`_… and ${failing.length - maxFailingRows} more not passing; see the job summary._`);
    {
      // Every row shown keeps its reasons, each naming its check's text (at detail 0 the shortest).
      const why = failing
        .slice(0, detail >= 2 ? failing.length : detail === 1 ? 20 : maxFailingRows)
        .map((c) => {
          const lines = whyNot(c).slice(0, detail >= 2 ? 12 : detail === 1 ? 4 : 2);
          return lines.length
            ? `**${codeCell(c.id, 80)}**\n${lines.map((l) => `- ${cell(l, detail >= 2 ? 400 : detail === 1 ? 250 : 200)}`).join('\n')}`
            : '';
        })
        .filter(Boolean);
      if (why.length) {
        // The reasons are what a reviewer came for: shown open while they are few.
        const open = failing.length <= 10 ? ' open' : '';
        parts.push(
          // With a baseline the list also holds regressed cases that still pass.
          `<details${open}><summary>${withBase ? 'What they miss' : 'Why they did not pass'}</summary>\n\n${why.join('\n\n')}\n\n</details>`,
        );
      }
    }
  }
  if (still.length > 0) {
    const summary = `${still.length} still failing (failing on the base too)`;
    if (detail >= 1)
      parts.push(
        `<details><summary>${summary}</summary>\n\n${header}\n${still.map(row).join('\n')}\n\n</details>`,
      );
    else parts.push(`_${summary}: listed in the job summary._`);
  }
  if (passing.length > 0) {
    if (detail >= 1)
      parts.push(
        `<details><summary>${passing.length} passing case${passing.length === 1 ? '' : 's'}</summary>\n\n${header}\n${passing.map(row).join('\n')}\n\n</details>`,
      );
    else
      parts.push(
        `_${passing.length} passing case${passing.length === 1 ? '' : 's'} (listed in the job summary)._`,
      );
  }
  if (counts.skipped) parts.push(`_${counts.skipped} skipped, not judged (see above)._`);
  return parts.join('\n\n');
}

function checkerSection(r: CheckerResult, detail: number): string {
  const title = r.title ? `${cell(r.title, 200)} (${code(r.path)})` : code(r.path);
  const parts = [`### ${icon(r.verdict)} Rubric ${title}: ${r.verdict}`];
  const counts = formatCheckerCounts(r.counts);
  if (counts) parts.push(`\`${counts}\``);
  if (r.error) parts.push(`> **Error:** ${cell(errorLine(r.error), 500)}`);
  const inner: string[] = [];
  if (r.gates.length > 0) {
    const rows = r.gates.map(
      (g) =>
        `| ${icon(g.verdict)} | ${codeCell(g.command, 100)} | ${g.timed_out ? 'timed out' : (g.exit_code ?? '—')} | ${(g.duration_ms / 1000).toFixed(1)} s |`,
    );
    inner.push(`**Gates**\n\n| | command | exit | time |\n|---|---|---|---|\n${rows.join('\n')}`);
    if (detail >= 1) {
      for (const g of r.gates.filter((x) => x.verdict === 'fail')) {
        const tail =
          g.output.length > (detail >= 2 ? 6000 : 1500)
            ? `…${g.output.slice(-(detail >= 2 ? 6000 : 1500))}`
            : g.output;
        inner.push(
          `<details><summary>Output of ${codeHtml(bounded(g.command, 100))}</summary>\n\n${codeBlock(tail)}\n\n</details>`,
        );
      }
    }
  }
  const must = r.checks.filter((c) => c.kind === 'must');
  const nice = r.checks.filter((c) => c.kind === 'nice');
  const checkRows = (list: typeof must) =>
    list
      .map(
        (c) =>
          `| ${c.satisfied === null ? '❔' : c.satisfied ? '✅' : '❌'} | ${cell(c.id, 60)} | ${cell(c.text, 160)} | ${cell(c.reasoning, detail >= 1 ? 300 : 120)} |`,
      )
      .join('\n');
  if (must.length)
    inner.push(`**Must-have**\n\n| | id | criterion | reasoning |\n|---|---|---|---|\n${checkRows(must)}`);
  if (nice.length)
    inner.push(
      `**Nice to have** (never blocks)\n\n| | id | criterion | reasoning |\n|---|---|---|---|\n${checkRows(nice)}`,
    );
  if (r.feedback) inner.push(`**Checker feedback** (${r.judge_verdict}): ${cell(r.feedback, 1500)}`);
  if (inner.length)
    parts.push(
      `<details${r.verdict === 'fail' ? ' open' : ''}><summary>Gates and criteria</summary>\n\n${inner.join('\n\n')}\n\n</details>`,
    );
  return parts.join('\n\n');
}

function historySection(results: RunResults): string {
  if (results.history.length < 2) return '';
  const hashes = new Set(results.history.map((h) => h.rubric_hash).filter(Boolean));
  const rows = results.history.slice(-10).map((h, i, list) => {
    const prev = list[i - 1];
    const changed =
      prev && h.rubric_hash && prev.rubric_hash && h.rubric_hash !== prev.rubric_hash
        ? ' (rubric changed)'
        : '';
    return `| ${h.iteration} | ${h.commit ? codeCell(h.commit.slice(0, 7)) : ''} | ${icon(h.verdict)} ${h.verdict} | ${score2(h.score)} | ${cell(h.counts, 80)} | ${h.rubric_hash ? `${codeCell(h.rubric_hash, 40)}${changed}` : ''} |`;
  });
  return `### Run history\n\n| # | commit | verdict | score | counts | rubric |\n|---|---|---|---|---|---|\n${rows.join('\n')}${hashes.size > 1 ? '\n\n_The rubric changed between runs._' : ''}`;
}

/** Where the full HTML report is: the workflow uploads it with the run's artifacts. */
export function reportFileLine(file: string, runUrl: string | null | undefined): string {
  const where = runUrl ? `[this run's artifacts](${runUrl})` : "this run's artifacts";
  return `📄 Every case, its answer and the judge's reasons: ${code(file)} in ${where}.`;
}

function usageLine(results: RunResults, runUrl: string | null | undefined): string {
  const u = results.usage;
  const bits: string[] = [];
  if (results.judge) bits.push(`judge ${code(results.judge.model)}`);
  bits.push(
    `${u.judge_calls} judge call${u.judge_calls === 1 ? '' : 's'}${u.cached_calls ? ` (+${u.cached_calls} cached)` : ''}`,
  );
  const samples = samplesNote(results);
  if (samples) bits.push(samples);
  const repeats = repeatsNote(results);
  if (repeats) bits.push(repeats);
  bits.push(
    `${withThousands(u.prompt_tokens)} prompt + ${withThousands(u.completion_tokens)} completion tokens`,
  );
  if (u.cost_usd !== null)
    bits.push(`≈ $${u.cost_usd < 0.01 ? u.cost_usd.toFixed(4) : u.cost_usd.toFixed(2)} (estimate)`);
  bits.push(`${(results.duration_ms / 1000).toFixed(1)} s`);
  if (runUrl) bits.push(`[workflow run](${runUrl})`);
  return `<sub>${bits.join(' · ')}</sub>`;
}

export function headline(results: RunResults): string {
  const c = results.counts;
  const total = c.pass + c.borderline + c.fail + c.error + (c.skipped ?? 0) + (c.inconclusive ?? 0);
  const bits: string[] = [];
  if (total > 0)
    bits.push(
      `**${total} case${total === 1 ? '' : 's'}:** ${c.pass} pass · ${c.borderline} borderline · ${c.fail} fail${c.error ? ` · ${c.error} error` : ''}${c.skipped ? ` · ${c.skipped} skipped` : ''}${inconclusiveCount(c)}`,
    );
  if (results.rubric)
    bits.push(
      `**rubric:** ${results.rubric.verdict}${formatCheckerCounts(results.rubric.counts) ? ` (${formatCheckerCounts(results.rubric.counts)})` : ''}`,
    );
  const base = [baselineLine(results), effectMarkdown(results)].filter(Boolean).join('\n\n');
  const after = [gateNotes(results), noBaselineLine(results)].filter(Boolean).join('\n\n');
  return `## ${icon(results.verdict)} rubric-eval: **${results.verdict}** · score ${score2(results.score)}\n\n${base ? `${base}\n\n` : ''}${bits.join(' · ')}${after ? `\n\n${after}` : ''}`;
}

/** Under the headline: the pass-rate gates, and one line per reason cases were skipped. */
function gateNotes(results: RunResults): string {
  const lines = (results.pass_rates ?? []).map((p) => `${p.met ? '✅' : '❌'} ${cell(passRateLine(p), 300)}`);
  const budget = budgetLine(results);
  if (budget) lines.push(`💲 ${budget}`);
  for (const l of skippedLines(results)) lines.push(`⏭️ ${inert(l)}`);
  return lines.map((l) => `- ${l}`).join('\n');
}

function render(results: RunResults, opts: RenderOptions, detail: number): string {
  const parts: string[] = [];
  if (opts.sticky) parts.push(COMMENT_MARKER);
  if (!opts.omitHeadline) parts.push(headline(results));
  const trusted = trustedNote(results);
  if (trusted) parts.push(trusted);
  if (results.partial)
    parts.push('> [!WARNING]\n> The run was cancelled: these results are partial and the check fails.');
  if (results.errors.length > 0) {
    const shown = results.errors.slice(0, detail >= 1 ? 50 : 10);
    parts.push(
      `> [!CAUTION]\n> ${results.errors.every((e) => e.startsWith('internal error')) ? 'Nothing was judged: rubric-eval failed; the log has the details.' : 'Nothing was judged: the input is invalid.'}\n\n${codeBlock(shown.map(errorLine).join('\n'))}${results.errors.length > shown.length ? `\n_… and ${results.errors.length - shown.length} more._` : ''}`,
    );
  }
  const calibration = calibrationSection(results);
  if (calibration) parts.push(calibration);
  if (results.rubric) parts.push(checkerSection(results.rubric, detail));
  for (const s of results.suites) parts.push(suiteSection(s, detail, !!results.baseline));
  const removed = removedSection(results, detail);
  if (removed) parts.push(removed);
  const history = historySection(results);
  if (history) parts.push(history);
  if (opts.reportFile) parts.push(reportFileLine(opts.reportFile, opts.runUrl));
  parts.push(usageLine(results, opts.runUrl));
  if (opts.sticky) parts.push(hiddenTail(results, opts));
  return parts.join('\n\n') + '\n';
}

/** The comment's hidden last lines: which run wrote it, then the run history (always last). */
function hiddenTail(results: RunResults, opts: RenderOptions): string {
  return [...(opts.hiddenLines ?? []), historyBlock(results.history)].join('\n');
}

/**
 * The report as markdown (the PR comment, the job summary, `--format markdown`). Rendered at the
 * most detail that fits `limit`; then folded; as a last resort cut, with a pointer to where the
 * full report is. Pure: the same results give the same text.
 */
export function renderReport(results: RunResults, opts: RenderOptions = {}): string {
  const limit = opts.limit ?? (opts.sticky ? COMMENT_LIMIT : SUMMARY_LIMIT);
  const measure = opts.measure ?? (opts.sticky ? characters : utf8Bytes);
  for (const detail of [2, 1, 0]) {
    const text = render(results, opts, detail);
    if (measure(text) <= limit) return text;
  }
  const tailParts = [
    ...(opts.reportFile ? [reportFileLine(opts.reportFile, opts.runUrl)] : []),
    usageLine(results, opts.runUrl),
    ...(opts.sticky ? [hiddenTail(results, opts)] : []),
  ].join('\n\n');
  const note = `\n\n> [!NOTE]\n> This report was cut to fit GitHub's limit. ${opts.fullReportHint ?? 'The full report is in the job summary and the results file.'}\n\n`;
  // Room for the cut text, its closing fence and the closing tags it may need.
  const text = render(results, opts, 0);
  const closers = (text.match(/<details/g) ?? []).length * '\n\n</details>'.length + 32;
  const room = limit - measure(tailParts) - measure(note) - closers;
  let cut = prefixWithin(text, Math.max(0, room), measure);
  cut = cut.slice(0, Math.max(0, cut.lastIndexOf('\n')));
  // A cut inside a code block or <details> would swallow the rest: close what is open.
  const fence = openFence(cut);
  if (fence) cut += `\n${fence}`;
  const open = (cut.match(/<details/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  return `${cut}${'\n\n</details>'.repeat(Math.max(0, open))}${note}${tailParts}\n`;
}

/** The longest prefix of `text` whose measure is at most `room`. */
function prefixWithin(text: string, room: number, measure: Measure): string {
  if (measure(text) <= room) return text;
  let lo = 0;
  let hi = Math.min(text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(text.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/** The backtick fence left open at the end of `text`, if any. */
function openFence(text: string): string | null {
  let open: string | null = null;
  for (const line of text.split('\n')) {
    const run = /^(`{3,})/.exec(line)?.[1];
    if (!run) continue;
    if (open === null) open = run;
    else if (run.length >= open.length && line.trim() === run) open = null;
  }
  return open;
}
