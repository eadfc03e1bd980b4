import { type CaseResult, type RunResults } from '../core/results.js';

/**
 * Repeats in the reports (README "Repeats"): a repeated case shows its pass rate as `4/5`, the
 * exact interval its verdict was decided on (on hover in markdown, in brackets on a terminal),
 * and, when it did not pass, every answer's verdict in order (`✓✓✗✓✓`). Built from numbers and
 * verdicts only: nothing quoted, so nothing here needs the neutraliser.
 */

const two = (x: number) => x.toFixed(2);

/** Passing answers of a repeated case; null for a case judged on one answer. */
function passed(c: CaseResult): number | null {
  if (c.repeats === undefined || c.pass_rate === undefined) return null;
  return Math.round(c.pass_rate * c.repeats);
}

/** `4/5`; null for a case judged on one answer. */
function passFraction(c: CaseResult): string | null {
  const k = passed(c);
  return k === null ? null : `${k}/${c.repeats}`;
}

/** `0.34–0.99`: the exact interval of the pass rate. */
function rateInterval(c: CaseResult): string {
  return `${two(c.pass_rate_low ?? 0)}–${two(c.pass_rate_high ?? 1)}`;
}

/** `✓✓✗✓✓`: each answer's verdict in the order asked (`!` an answer that errored). */
export function answerMarks(c: CaseResult): string {
  return (c.answers ?? [])
    .map((a) => (a.verdict === 'pass' ? '✓' : a.verdict === 'error' ? '!' : '✗'))
    .join('');
}

/** The hover text of a pass rate: what the numbers mean, for a reviewer who did not read the README. */
function rateTitle(c: CaseResult): string {
  return `${passed(c)} of ${c.repeats} answers passed (rate ${two(c.pass_rate ?? 0)}); exact 90% interval ${rateInterval(c)}`;
}

/** The move of the pass rate since the base: `0.60 ▼0.30 (9/10 → 3/5)`; null without base rates. */
function rateDelta(c: CaseResult): string | null {
  const b = c.baseline;
  if (!b || b.pass_rate == null || b.passed == null || b.repeats == null || c.pass_rate === undefined)
    return null;
  const delta = Math.round((c.pass_rate - b.pass_rate) * 100) / 100;
  const move = delta === 0 ? '' : ` ${delta < 0 ? '▼' : '▲'}${two(Math.abs(delta))}`;
  return `${two(c.pass_rate)}${move} (${b.passed}/${b.repeats} → ${passFraction(c)})`;
}

/**
 * The markdown cell of a repeated case: `<abbr title="…">4/5</abbr> ✓✓✗✓✓` (marks unless it
 * passed), or with a baseline `0.60 ▼0.30 (9/10 → 3/5)` with the same hover; null for one answer.
 */
export function passRateCell(c: CaseResult): string | null {
  const fraction = passFraction(c);
  if (fraction === null) return null;
  const shown = rateDelta(c) ?? fraction;
  const marks = c.verdict === 'pass' ? '' : ` ${answerMarks(c)}`;
  return `<abbr title="${rateTitle(c)}">${shown}</abbr>${marks}`;
}

/** The terminal's version: `4/5 [0.34–0.99] ✓✓✗✓✓` (or with the baseline's move); null for one answer. */
export function passRateText(c: CaseResult): string | null {
  const fraction = passFraction(c);
  if (fraction === null) return null;
  const marks = c.verdict === 'pass' ? '' : ` ${answerMarks(c)}`;
  return `${rateDelta(c) ?? fraction} [${rateInterval(c)}]${marks}`;
}

/** Inconclusive cases lead every list: they are what repeats are for (then the list's own order). */
export function inconclusiveFirst(a: CaseResult, b: CaseResult): number {
  return Number(b.verdict === 'inconclusive') - Number(a.verdict === 'inconclusive');
}

/** `· 2 inconclusive` after a count line; empty when there are none. */
export function inconclusiveCount(counts: RunResults['counts']): string {
  return counts.inconclusive ? ` · ${counts.inconclusive} inconclusive` : '';
}

/** `repeats: 57 answers for 5 cases` for the usage line; null when nothing was repeated. */
export function repeatsNote(results: RunResults): string | null {
  let cases = 0;
  let answers = 0;
  for (const s of results.suites)
    for (const c of s.cases)
      if (c.repeats !== undefined) {
        cases++;
        answers += c.repeats;
      }
  return cases === 0 ? null : `repeats: ${answers} answers for ${cases} case${cases === 1 ? '' : 's'}`;
}
