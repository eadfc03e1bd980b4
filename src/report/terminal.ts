import { WriteStream } from 'node:tty';
import { styleText } from 'node:util';
import { type RunResults } from '../core/results.js';
import { formatCheckerCounts } from '../checker/verdict.js';
import { changeCounts, changeWord, scoreWithDelta } from './baseline.js';
import { checklistMet, rangeScores, whyNot } from './comment-body.js';
import { judgeSplit, samplesNote } from './samples.js';

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
  if (verdict === 'borderline') return style.yellow(text);
  return style.red(text);
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** The report as a terminal table (the CLI's default format). */
export function renderTerminal(results: RunResults, style: Style = plain): string {
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
      const mark = c.satisfied === null ? '  ?  ' : c.satisfied ? 'PASS' : 'FAIL';
      out.push(
        `  ${c.satisfied ? style.green(mark) : c.kind === 'nice' ? style.yellow(mark) : style.red(mark)}  ${c.id.padEnd(7)} ${c.text}${c.satisfied === false && c.reasoning ? style.dim(` — ${c.reasoning}`) : ''}`,
      );
    }
    if (r.error) out.push(style.red(`  error: ${r.error}`));
    if (r.feedback) out.push(style.dim(`  feedback: ${r.feedback}`));
    out.push('');
  }
  for (const s of results.suites) {
    out.push(style.bold(s.path));
    const idWidth = Math.min(48, Math.max(4, ...s.cases.map((c) => c.id.length)));
    for (const c of s.cases) {
      const extra = [
        checklistMet(c) ? `checklist ${checklistMet(c)}` : '',
        rangeScores(c) ?? '',
        judgeSplit(c) ?? '',
      ]
        .filter(Boolean)
        .join('  ');
      const change = changeWord(c);
      out.push(
        `  ${paint(style, c.verdict, pad(c.verdict, 10))} ${results.baseline ? pad(scoreWithDelta(c), 10) : c.score.toFixed(2)}  ${pad(c.id, idWidth)}  ${change ? `${paint(style, /broken|regressed/.test(change) ? 'fail' : change === 'still failing' ? 'borderline' : 'pass', change)}  ` : ''}${style.dim(extra)}`,
      );
      if (c.verdict !== 'pass')
        for (const line of whyNot(c).slice(0, 6))
          out.push(style.dim(`      ${line.length > 160 ? `${line.slice(0, 159)}…` : line}`));
    }
    out.push('');
  }
  if (results.baseline) {
    const b = results.baseline;
    out.push(
      b.in_checkout
        ? `${style.bold('vs file in this PR')} ${b.file ?? ''}: ${changeCounts(results)}`
        : `${style.bold('vs base')} ${b.commit ? b.commit.slice(0, 7) : (b.file ?? '')}: ${changeCounts(results)}`,
    );
    for (const k of b.removed.slice(0, 20)) out.push(style.dim(`  removed  ${k}`));
    if (b.removed.length > 20) out.push(style.dim(`  … and ${b.removed.length - 20} more removed`));
  } else if (results.baseline_note) out.push(style.dim(results.baseline_note));
  const c = results.counts;
  const u = results.usage;
  out.push(
    `${style.bold('Verdict:')} ${paint(style, results.verdict, results.verdict.toUpperCase())}  score ${results.score.toFixed(2)}  ` +
      `(${c.pass} pass · ${c.borderline} borderline · ${c.fail} fail${c.error ? ` · ${c.error} error` : ''})${results.partial ? style.red('  PARTIAL: cancelled') : ''}`,
  );
  out.push(
    style.dim(
      `${u.judge_calls} judge calls${u.cached_calls ? ` (+${u.cached_calls} cached)` : ''}${samplesNote(results) ? ` · ${samplesNote(results)}` : ''} · ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens${u.cost_usd !== null ? ` · ≈ $${u.cost_usd.toFixed(4)}` : ''} · ${(results.duration_ms / 1000).toFixed(1)} s`,
    ),
  );
  return out.join('\n') + '\n';
}
