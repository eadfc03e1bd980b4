import { type CalibrationResults, type CalibrationRow, shownCheck } from '../core/calibration-results.js';
import { type RunResults } from '../core/results.js';
import { cell, code } from './inert.js';
import { plainLine } from './terminal-text.js';

const k2 = (k: number | null) => (k === null ? '—' : k.toFixed(2));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How text from the results is quoted where it is shown: inert markdown on GitHub, one plain line in a terminal. */
interface Quote {
  text(s: string, max: number): string;
  code(s: string): string;
}
const MARKDOWN: Quote = { text: cell, code: (s) => code(s) };
export const PLAIN: Quote = { text: plainLine, code: (s) => plainLine(s, 200) };

/** `judge agreement: κ 0.82 over 48 labels; 1 check advisory`: the comment's (and terminal's) one calibration line. */
export function calibrationLine(c: CalibrationResults, q: Quote = MARKDOWN): string {
  const o = c.overall;
  const kappa = o.kappa !== null ? `κ ${k2(o.kappa)}` : `κ — (${q.text(o.kappa_note ?? 'undefined', 200)})`;
  const bits = [`judge agreement: ${kappa} over ${plural(c.labels, 'label')}`];
  const n = c.below_floor.length;
  if (c.floor !== null)
    bits.push(
      c.effect === 'advisory'
        ? `${plural(n, 'check')} advisory`
        : `${plural(n, 'check')} below min-judge-agreement ${c.floor} (fail-on: calibration)`,
    );
  return bits.join('; ');
}

/** Per check below the floor, why it does not gate (or fails the check): at most 20, then how many more. */
export function belowFloorLines(c: CalibrationResults, q: Quote = MARKDOWN): string[] {
  const lines = c.below_floor
    .slice(0, 20)
    .map(
      (b) =>
        `${q.code(`${b.suite} › ${b.id} › ${shownCheck(b)}`)} ${c.effect === 'advisory' ? 'is advisory (shown, not gating)' : 'fails the check'}: ${q.text(b.reason, 300)}`,
    );
  if (c.below_floor.length > 20)
    lines.push(`… and ${c.below_floor.length - 20} more (the results file has them all)`);
  return lines;
}

/** Why each check below the floor does not gate (or fails the check), and what the PR's own labels would make of it. */
export function calibrationSection(results: RunResults): string {
  const c = results.calibration;
  if (!c) return '';
  const lines = [`**${calibrationLine(c)}** <sub>(labels: ${code(c.file)} at ${cell(c.source, 80)})</sub>`];
  if (c.note) lines.push(`- ${cell(c.note, 300)}`);
  for (const line of belowFloorLines(c)) lines.push(`- ${line}`);
  if (c.errors.length)
    lines.push(
      `- ${plural(c.errors.length, 'labelled answer')} could not be judged; the log and results file say why`,
    );
  const after = c.after_merge;
  if (after) {
    lines.push(
      `- the pull request changes the labels: κ after merge: ${k2(after.overall.kappa)} over ${plural(after.labels, 'label')}, ${plural(after.below_floor.length, 'check')} below the floor (shown, never gating: labels gate from the base branch)`,
    );
    for (const r of afterMergeChanges(c))
      lines.push(
        `  - ${code(`${r.suite} › ${r.id} › ${r.check}`)} κ ${k2(r.before)} → κ after merge: ${k2(r.after)}`,
      );
  }
  if (c.after_merge_error)
    lines.push(`- the pull request's labels cannot be used after merge: ${cell(c.after_merge_error, 300)}`);
  return lines.join('\n');
}

/** The checks whose κ the PR's labels change, at most 10. */
function afterMergeChanges(c: CalibrationResults) {
  const at = (r: CalibrationRow) => JSON.stringify([r.suite, r.id, r.evaluator, r.check]);
  const before = new Map(c.rows.map((r) => [at(r), r.kappa]));
  return (c.after_merge?.rows ?? [])
    .map((r) => ({
      suite: r.suite,
      id: r.id,
      check: shownCheck(r),
      before: before.get(at(r)) ?? null,
      after: r.kappa,
    }))
    .filter((r) => r.before !== r.after)
    .slice(0, 10);
}
