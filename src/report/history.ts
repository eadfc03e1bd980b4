import { type HistoryEntry, type CheckerCounts, type RunCounts } from '../core/results.js';
import { formatCheckerCounts } from '../checker/verdict.js';

/** The sticky comment's first line: how the action finds its own comment. */
export const COMMENT_MARKER = '<!-- rubric-eval -->';
/** The history block, matched only as a whole line: the comment's last line. */
const HISTORY_RE = /^<!-- rubric-eval-history:([A-Za-z0-9+/=]*) -->$/;
/** Which run wrote the comment: the line before the history block. */
const RUN_RE = /^<!-- rubric-eval-run:(\d+)\.(\d+) -->$/;

/** A workflow run as the order of writers: a later run id, or a later attempt of the same run. */
export interface RunKey {
  id: number;
  attempt: number;
}

export function runLine(key: RunKey): string {
  return `<!-- rubric-eval-run:${key.id}.${key.attempt} -->`;
}

/** Negative when `a` ran before `b`. */
export function compareRuns(a: RunKey, b: RunKey): number {
  return a.id - b.id || a.attempt - b.attempt;
}

/**
 * The comment's own hidden lines: the last line (history) and the one before it (run). Only
 * these are read; a history block anywhere else in the body (quoted gate output, say) is text.
 */
function hiddenLines(body: string): { history: string | undefined; run: string | undefined } {
  const lines = body.trimEnd().split('\n');
  return { history: lines.at(-1), run: lines.at(-2) };
}

/** The run that wrote a comment of ours, or null when the comment does not say. */
export function parseRunKey(body: string | null | undefined): RunKey | null {
  const m = body ? RUN_RE.exec(hiddenLines(body).run ?? '') : null;
  return m ? { id: Number(m[1]), attempt: Number(m[2]) } : null;
}
/** Iterations kept in the comment; older ones are dropped first. */
const MAX_HISTORY = 20;

/** The run history as a hidden block: base64 JSON, so no text inside can close the HTML comment. */
export function historyBlock(history: readonly HistoryEntry[]): string {
  const kept = history
    .slice(-MAX_HISTORY)
    .map((h) => ({ ...h, feedback: h.feedback ? h.feedback.slice(0, 300) : null }));
  return `<!-- rubric-eval-history:${Buffer.from(JSON.stringify(kept)).toString('base64')} -->`;
}

/**
 * Reads the history back from the body of the action's own comment, from its last line only;
 * anything unreadable is an empty history, not a crash.
 */
export function parseHistory(body: string | null | undefined): HistoryEntry[] {
  const m = body ? HISTORY_RE.exec(hiddenLines(body).history ?? '') : null;
  if (!m) return [];
  try {
    const data: unknown = JSON.parse(Buffer.from(m[1]!, 'base64').toString('utf8'));
    if (!Array.isArray(data)) return [];
    return data
      .filter(
        (h): h is HistoryEntry =>
          typeof h === 'object' && h !== null && typeof (h as HistoryEntry).iteration === 'number',
      )
      .map((h) => ({
        iteration: h.iteration,
        commit: typeof h.commit === 'string' ? h.commit : null,
        verdict: h.verdict === 'pass' || h.verdict === 'borderline' ? h.verdict : 'fail',
        score: typeof h.score === 'number' ? h.score : 0,
        counts: typeof h.counts === 'string' ? h.counts : null,
        feedback: typeof h.feedback === 'string' ? h.feedback : null,
        rubric_hash: typeof h.rubric_hash === 'string' ? h.rubric_hash : null,
        ...(h.rubric_verdict === 'accept' || h.rubric_verdict === 'retry' || h.rubric_verdict === 'terminate'
          ? { rubric_verdict: h.rubric_verdict }
          : {}),
        at: typeof h.at === 'string' ? h.at : '',
      }));
  } catch {
    return [];
  }
}

/**
 * The history's counts column: the cases' verdicts when the run had cases, the rubric's counts when
 * it had a rubric, both when it had both.
 */
export function historyCounts(cases: RunCounts, rubric: CheckerCounts | null): string {
  const inconclusive = cases.inconclusive ?? 0;
  const total = cases.pass + cases.borderline + cases.fail + cases.error + inconclusive;
  const parts: string[] = [];
  if (total > 0)
    parts.push(
      `${cases.pass} pass · ${cases.borderline} borderline · ${cases.fail} fail${cases.error ? ` · ${cases.error} error` : ''}${inconclusive ? ` · ${inconclusive} inconclusive` : ''}`,
    );
  if (rubric) parts.push(total > 0 ? `rubric ${formatCheckerCounts(rubric)}` : formatCheckerCounts(rubric));
  return parts.join(' · ') || '0 cases';
}
