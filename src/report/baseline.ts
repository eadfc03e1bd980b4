import { stillFailing } from '../baseline/change.js';
import { CHANGE_ORDER } from '../baseline/compare.js';
import { type CaseResult, type RunBaseline, type RunResults } from '../core/results.js';
import { bounded, cell, code, inert } from './inert.js';

/** Quoted code outside a table (a line, a list item): one line, bounded, shown as written. */
const codeLine = (text: string, max: number) => code([...text.replace(/\s+/g, ' ')].slice(0, max).join(''));

/** Was this case failing on both sides ("still failing": not the pull request's doing)? */
export function isStillFailing(c: CaseResult): boolean {
  return !!c.baseline && stillFailing(c.verdict, c.baseline.verdict, c.baseline.change);
}

/** `2 broken · 1 regressed · 1 fixed · 2 still failing · 1 new`; zero counts left out. */
export function changeCounts(results: RunResults): string {
  const b = results.baseline;
  if (!b) return '';
  let still = 0;
  for (const s of results.suites) for (const c of s.cases) if (isStillFailing(c)) still++;
  const bits: string[] = [];
  for (const k of CHANGE_ORDER) {
    if (k === 'new' && still) bits.push(`${still} still failing`);
    if (b.changes[k]) bits.push(`${b.changes[k]} ${k}`);
  }
  return bits.join(' · ') || 'no change';
}

/** What the comparison is against: the base commit (linked to its run when known), or the file. */
function baseRef(b: RunBaseline): string {
  // The checkout's own file: whatever commit it claims is the pull request's word.
  if (b.in_checkout) return `file in this PR ${codeLine(b.file ?? '', 80)}`;
  return `base ${shortRef(b)}`;
}

/** The short base commit, linked to the base run when known; only a sha is ever shown raw. */
function shortRef(b: RunBaseline): string {
  const sha = b.commit && /^[0-9a-f]{7,64}$/i.test(b.commit) ? b.commit.slice(0, 7) : null;
  const label = sha ?? (b.source === 'file' && b.file ? codeLine(b.file, 80) : 'branch');
  return sha && b.run_url ? `[${sha}](${b.run_url})` : label;
}

/** The comment's second line: what this pull request changed against the base. */
export function baselineLine(results: RunResults): string | null {
  const b = results.baseline;
  if (b)
    return `vs ${baseRef(b)}: ${changeCounts(results)}${b.check ? checkNote(b.check) : ''}${b.notice ? `\n\n_${cell(b.notice, 400)}_` : ''}`;
  return null;
}

/**
 * Why there is no baseline, under the counts (a first run's aside, not its headline). The note's
 * `code` spans (an input to set, `baseline: off`) are shown as code, not as escaped backticks.
 */
export function noBaselineLine(results: RunResults): string | null {
  if (results.baseline || !results.baseline_note) return null;
  const note = bounded(results.baseline_note, 400);
  const parts = note.split(/`([^`]+)`/).map((part, i) => (i % 2 ? code(part) : inert(part)));
  return `_${parts.join('')}_`;
}

/** The verdict can fail while the check passes: say which the reviewer is looking at. */
function checkNote(check: NonNullable<RunBaseline['check']>): string {
  return check.fails
    ? ` — \`fail-on: regression\` fails the check: ${cell(check.reasons.join(', '), 300)}`
    : ' — `fail-on: regression` passes the check: nothing got worse';
}

/** `0.60 ▼0.30`: the score with its move since the base, when it moved by a visible amount. */
export function scoreWithDelta(c: CaseResult): string {
  const now = c.score.toFixed(2);
  const was = c.baseline?.score;
  if (was === null || was === undefined) return now;
  const delta = Math.round((c.score - was) * 100) / 100;
  if (delta === 0) return now;
  return `${now} ${delta < 0 ? '▼' : '▲'}${Math.abs(delta).toFixed(2)}`;
}

/** The change word of the case's row; empty for `same` (and "still failing" for those). */
export function changeWord(c: CaseResult): string {
  if (!c.baseline) return '';
  if (isStillFailing(c)) return 'still failing';
  return c.baseline.change === 'same' ? '' : c.baseline.change;
}

const RANK: Record<string, number> = { broken: 0, regressed: 1, new: 2, redefined: 2 };

/** Review order with a baseline: what the PR broke or regressed first, then other new trouble. */
export function byReviewOrder(a: CaseResult, b: CaseResult): number {
  return (RANK[a.baseline?.change ?? ''] ?? 3) - (RANK[b.baseline?.change ?? ''] ?? 3);
}

/** The base's cases this run no longer has, folded. */
export function removedSection(results: RunResults, detail: number): string {
  const removed = results.baseline?.removed ?? [];
  if (removed.length === 0) return '';
  const shown = removed.slice(0, detail >= 2 ? 200 : detail === 1 ? 50 : 10);
  const more = removed.length - shown.length;
  return `<details><summary>${removed.length} case${removed.length === 1 ? '' : 's'} of the base no longer here</summary>\n\n${shown.map((k) => `- ${codeLine(k, 120)}`).join('\n')}${more ? `\n- _… and ${more} more._` : ''}\n\n</details>`;
}
