import { type RunResults } from '../core/results.js';
import { changeCounts } from './baseline.js';
import { effectText } from './effect.js';
import { renderReport } from './comment-body.js';
import { samplesNote } from './samples.js';
import { inconclusiveCount, repeatsNote } from './repeats.js';

/** The job summary: the full report (redacted), a shard's flagged as one part of a run. */
export function jobSummary(
  results: RunResults,
  redact: (text: string) => string,
  runUrl: string | null,
  reportFile: string | null = null,
): string {
  return shardNote(results) + redact(renderReport(results, { runUrl, reportFile }));
}

/** A shard's summary shows a part of a run: say so before anyone reads its verdict as the run's. */
function shardNote(r: RunResults): string {
  if (!r.shard) return '';
  const ran = r.suites.reduce((n, s) => n + s.cases.length, 0);
  return `> **Shard ${r.shard.index}/${r.shard.total}**: ${ran} of the ${r.shard.planned} planned cases. The merge job reports the whole run and decides the check.\n\n`;
}

/** The log's last lines: the verdict and counts, and what changed against the baseline. */
export function verdictLines(results: RunResults): string[] {
  const c = results.counts;
  const samples = samplesNote(results);
  const repeats = repeatsNote(results);
  const lines = [
    `verdict: ${results.verdict} · score ${results.score.toFixed(2)} · ${c.pass} pass · ${c.borderline} borderline · ${c.fail} fail · ${c.error} error${c.skipped ? ` · ${c.skipped} skipped` : ''}${inconclusiveCount(c)}${samples ? ` · ${samples}` : ''}${repeats ? ` · ${repeats}` : ''}`,
  ];
  if (results.baseline)
    lines.push(
      `vs ${results.baseline.in_checkout ? `file in this PR ${results.baseline.file}` : `base ${results.baseline.commit?.slice(0, 7) ?? results.baseline.file}`}: ${changeCounts(results)}`,
    );
  lines.push(...effectText(results));
  return lines;
}
