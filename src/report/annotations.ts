import { type CaseResult, type RunResults } from '../core/results.js';
import { caseReason } from './markdown.js';

/** GitHub shows at most 10 error annotations per step; the rest are dropped without a word. */
export const ANNOTATION_LIMIT = 10;

export interface Annotation {
  message: string;
  /** Suite path as the results name it; the adapter makes it relative to the repository. */
  file?: string;
  line?: number;
  title: string;
}

const RANK = { error: 0, fail: 1, borderline: 2, pass: 3 } as const;

/**
 * One annotation per failed or errored case at its line, worst first (errors, then the lowest
 * scores), within `limit`; when there are more, the last slot says how many were left out.
 */
export function caseAnnotations(results: RunResults, limit = ANNOTATION_LIMIT): Annotation[] {
  const failing = results.suites
    .flatMap((s) => s.cases.map((c) => ({ suite: s.path, c })))
    .filter(({ c }) => c.verdict === 'fail' || c.verdict === 'error')
    .sort((a, b) => RANK[a.c.verdict] - RANK[b.c.verdict] || a.c.score - b.c.score);
  if (limit <= 0) return [];
  const shown = failing.length > limit ? failing.slice(0, limit - 1) : failing;
  const out: Annotation[] = shown.map(({ suite, c }) => ({
    message: annotationText(c),
    file: suite,
    line: c.line,
    title: `rubric-eval: case ${c.verdict === 'error' ? 'errored' : 'failed'}`,
  }));
  const left = failing.length - shown.length;
  if (left > 0)
    out.push({
      message: `${left} more failed or errored case${left === 1 ? '' : 's'} not annotated (GitHub shows ${limit} per step); see the job summary or the results file`,
      title: 'rubric-eval: more cases',
    });
  return out;
}

/** One line, bounded: an annotation is a pointer to the report, not the report. */
function annotationText(c: CaseResult): string {
  const said = caseReason(c).replace(/\s+/g, ' ').trim();
  const reason = said.length > 300 ? `${said.slice(0, 299)}…` : said;
  return `case '${c.id}' ${c.verdict === 'error' ? 'errored' : `failed (score ${c.score.toFixed(2)})`}${reason ? `: ${reason}` : ''}`;
}
