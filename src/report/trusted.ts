import { type RunResults } from '../core/results.js';
import { codeCell } from './inert.js';

const MAX_LISTED = 10;

/** Up to MAX_LISTED quoted names, then how many more. */
function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).map((k) => codeCell(k, 120));
  return `${shown.join(', ')}${items.length > shown.length ? ` and ${items.length - shown.length} more` : ''}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The judge stage's note at the top of the report (README "The trusted stage"): what judged
 * (the base branch's suites), what the pull request's run only reported (answers, gates), and
 * what the pull request changes that is judged after merge. Every name from the pull request
 * (case keys, commands, files) is quoted through the neutraliser.
 */
export function trustedNote(results: RunResults): string {
  const t = results.trusted;
  if (!t) return '';
  const run = t.record_run;
  const runRef = run ? (run.url ? `[run ${run.id}](${run.url})` : `run ${run.id}`) : 'its run';
  const lines = [
    `**Trusted stage:** judged with the base branch's suites, rubric and judges. The answers${
      results.rubric ? ' and gate results' : ''
    } were recorded by the pull request's ${runRef}${
      t.record_shards ? ` (${t.record_shards} shard jobs, merged here)` : ''
    }${t.head_sha ? ` on ${codeCell(t.head_sha.slice(0, 7))}` : ''} and reported by it, not re-run here.`,
  ];
  const byJudge = results.suites.reduce(
    (n, s) => n + s.cases.filter((c) => c.answered_by === 'judge').length,
    0,
  );
  if (byJudge > 0)
    lines.push(
      `${plural(byJudge, 'case')} with a model-only target ${byJudge === 1 ? 'was' : 'were'} answered by this job from the pull request's version of the case (read as data), not taken from the recording.`,
    );
  if (run?.conclusion && run.conclusion !== 'success')
    lines.push(`The record run ended **${codeCell(run.conclusion, 40)}**.`);
  const changed = t.changed_files ?? [];
  if (changed.length > 0)
    lines.push(
      `This pull request changes ${plural(changed.length, 'judged file')} (${listed(changed)}): the base branch's version judged it; the change is judged after merge.`,
    );
  if (t.new_in_pr.length > 0)
    lines.push(
      `${plural(t.new_in_pr.length, 'case')} new in this pull request, judged after merge: ${listed(t.new_in_pr)}.`,
    );
  if (t.unanswered.length > 0)
    lines.push(
      `${plural(t.unanswered.length, 'base case')} without a recorded answer (each an error): ${listed(t.unanswered)}.`,
    );
  if (t.extra_gates.length > 0)
    lines.push(
      `${plural(t.extra_gates.length, 'gate')} reported that the base rubric does not have (not counted): ${listed(t.extra_gates)}.`,
    );
  return lines.map((l) => `> ${l}`).join('\n>\n');
}
