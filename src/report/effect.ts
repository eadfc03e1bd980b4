import { effectLines, overallRows } from '../core/effect-line.js';
import { type RunResults } from '../core/results.js';
import { cell } from './inert.js';

const ICON = { improved: '📈', 'non-inferior': '🟰', regressed: '📉', inconclusive: '❔' } as const;

/**
 * Under the comment's headline: the pull request's overall effect, one line per metric (pass
 * rate, then score) with its interval, verdict and what the suite can detect; null without a
 * baseline. Numbers and fixed words only, still through the neutraliser as every line is.
 */
export function effectMarkdown(results: RunResults): string | null {
  const effect = results.effect;
  if (!effect) return null;
  const rows = overallRows(effect);
  const lines = effectLines(effect).map(
    (l, i) => `- ${rows[i] ? ICON[rows[i].verdict] : '❔'} **effect:** ${cell(l, 300)}`,
  );
  return lines.join('\n');
}

/** The same lines for the terminal and the log, plain. */
export function effectText(results: RunResults): string[] {
  return results.effect ? effectLines(results.effect).map((l) => `effect: ${l}`) : [];
}
