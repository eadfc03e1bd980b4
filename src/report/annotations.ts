import path from 'node:path';
import { type Diagnostic } from '../core/diagnostics.js';
import { type CaseResult, type RunResults } from '../core/results.js';
import { caseReason, whyNot } from './case-reason.js';

/** GitHub shows at most 10 error annotations per step; the rest are dropped without a word. */
export const ANNOTATION_LIMIT = 10;

export interface Annotation {
  message: string;
  /** Suite path as the results name it; the adapter makes it relative to the repository. */
  file?: string;
  line?: number;
  title: string;
}

const RANK = { error: 0, fail: 1, inconclusive: 2, borderline: 2, pass: 3, skipped: 4 } as const;

/**
 * One annotation per failed or errored case at its line, worst first (errors, then the lowest
 * scores), within `limit`; when there are more, the last slot says how many were left out.
 */
export function caseAnnotations(results: RunResults, limit = ANNOTATION_LIMIT): Annotation[] {
  const failing = failingCases(results);
  if (limit <= 0) return [];
  const shown = failing.length > limit ? failing.slice(0, limit - 1) : failing;
  const out: Annotation[] = shown.map(({ suite, c }) => ({
    message: annotationText(c),
    // A case from a tests file the suite names (CSV, JSONL) has its line in that file.
    file: c.file ?? suite,
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

/** Every failed or errored case with its suite's path, worst first (errors, then the lowest scores). */
export function failingCases(results: RunResults): { suite: string; c: CaseResult }[] {
  return results.suites
    .flatMap((s) => s.cases.map((c) => ({ suite: s.path, c })))
    .filter(({ c }) => c.verdict === 'fail' || c.verdict === 'error')
    .sort((a, b) => RANK[a.c.verdict] - RANK[b.c.verdict] || a.c.score - b.c.score);
}

/**
 * One line, bounded: an annotation is a pointer to the report, not the report. A failed case
 * names its failed checks by their text (the why-list), an errored one its error.
 */
function annotationText(c: CaseResult): string {
  const why = c.verdict === 'error' ? caseReason(c) : whyNot(c).join('; ') || caseReason(c);
  const said = why.replace(/\s+/g, ' ').trim();
  const reason = said.length > 300 ? `${said.slice(0, 299)}…` : said;
  return `case '${c.id}' ${c.verdict === 'error' ? 'errored' : `failed (score ${c.score.toFixed(2)})`}${reason ? `: ${reason}` : ''}`;
}

/** One annotation of the step, as the runner takes it (`@actions/core`'s error and warning). */
export interface StepAnnotation {
  level: 'error' | 'warning';
  message: string;
  /** The file is relative to the repository root, where GitHub shows it. */
  properties: { file?: string; startLine?: number; startColumn?: number; title: string };
}

/**
 * The step's annotations: every validation problem at its position, then every failed or errored
 * case at its line, in what GitHub's 10 error annotations per step leave. A shard leaves the cases
 * to the merge, and only shard 1 repeats the validation problems (every shard finds the same).
 */
export function stepAnnotations(
  run: { results: RunResults; diagnostics: readonly Diagnostic[]; redact: (text: string) => string },
  where: { workspace: string; workingDirectory: string; shard: { index: number } | null },
): StepAnnotation[] {
  const rel = (p: string) => {
    const abs = path.resolve(where.workingDirectory, p);
    return path.relative(where.workspace, abs).split(path.sep).join('/');
  };
  const { shard } = where;
  const positioned = (shard && shard.index !== 1 ? [] : run.diagnostics).filter(
    (d) => d.file !== 'inputs' && d.line !== 0,
  );
  const out: StepAnnotation[] = positioned.map((d) => ({
    level: d.severity === 'error' ? 'error' : 'warning',
    message: `${d.subject ? `${d.subject}: ` : ''}${d.message}`,
    properties: {
      file: rel(d.file),
      startLine: d.line,
      startColumn: d.column,
      title: `rubric-eval: ${d.rule}`,
    },
  }));
  const used = positioned.filter((d) => d.severity === 'error' && d.line > 0).length;
  for (const a of shard ? [] : caseAnnotations(run.results, ANNOTATION_LIMIT - used))
    out.push({
      level: 'error',
      message: run.redact(a.message),
      properties: a.file ? { file: rel(a.file), startLine: a.line, title: a.title } : { title: a.title },
    });
  return out;
}
