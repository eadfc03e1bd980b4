import { type CaseResult, type CheckResult, type EvaluatorResult } from '../core/results.js';
import { bounded } from './inert.js';
import { checkSamples } from './samples.js';

// Why a case did not pass, in the words every report uses (comment, check run, JUnit, terminal,
// HTML): the renderers differ in escaping, not in what they say.

/** Absolute paths on a runner or a developer's machine: the comment shows only their last part. */
const MACHINE_PATH =
  /(?:\b[A-Za-z]:\\|(?<![\w.])\/(?:home|Users|tmp|var|opt|private|runner|github|__w|usr|root|srv|mnt|workspace)\/)[^\s:'"`()]*/g;

/**
 * An error as the comment shows it: its first line only, with machine paths shortened. The
 * stack and the full message stay in the log and the results file.
 */
export function errorLine(text: string | null | undefined): string {
  if (!text) return '';
  const first = text.trim().split(/\r?\n/, 1)[0]!.trim();
  return first.replace(MACHINE_PATH, (p) => `…/${p.split(/[\\/]/).filter(Boolean).pop() ?? ''}`);
}

/** Every evaluator of a case, composites' children included. */
function flattenEvaluators(list: readonly EvaluatorResult[]): EvaluatorResult[] {
  return list.flatMap((e) => [e, ...flattenEvaluators(e.children ?? [])]);
}

/** `4/5` checklist items met across the case's checklist evaluators; null when it has none. */
export function checklistMet(c: CaseResult): string | null {
  const checks = flattenEvaluators(c.evaluators)
    .filter((e) => e.mode === 'checklist')
    .flatMap((e) => e.checks ?? []);
  if (checks.length === 0) return null;
  return `${checks.filter((k) => k.satisfied).length}/${checks.length}`;
}

/** `accuracy 8/10, clarity 6/10`; null when the case has no score-range criteria. */
export function rangeScores(c: CaseResult): string | null {
  const checks = flattenEvaluators(c.evaluators)
    .filter((e) => e.mode === 'score_range')
    .flatMap((e) => e.checks ?? []);
  if (checks.length === 0) return null;
  return checks.map((k) => `${k.id} ${k.score}/10`).join(', ');
}

/** Why a case did not pass, in a sentence or two: errors, gating violations, failed checks. */
export function whyNot(c: CaseResult): string[] {
  if (c.error) return [`error: ${errorLine(c.error)}`];
  return c.evaluators.flatMap((e) => evaluatorReasons(e, ''));
}

const checkFailed = (k: NonNullable<EvaluatorResult['checks']>[number]) =>
  k.satisfied === false ||
  (k.score !== undefined &&
    ((k.required_min_score != null && k.score < k.required_min_score) || k.score < 6));

/** How long a check's own text may be in a why-line: enough to recognise it, short enough for a line. */
const CHECK_TEXT_MAX = 100;

/**
 * A failed check as a why-list names it: its id, what it asks for (cut to one bounded line) and
 * whether it is required: `rubric-2 "Mentions that the link expires after 15 minutes" (required)`.
 * The text is the suite's: every renderer still passes the whole line through its neutraliser.
 */
export function checkLabel(k: Pick<CheckResult, 'id' | 'text' | 'required'>): string {
  const text = k.text ? bounded(k.text, CHECK_TEXT_MAX) : '';
  return `${k.id}${text ? ` "${text}"` : ''}${k.required ? ' (required)' : ''}`;
}

const shorten = (t: string, n: number) => (t.length > n ? `${t.slice(0, n)}…` : t);

/**
 * The reasons one evaluator (and its children, named `parent › child`) gives for not passing. An
 * error is told once, where it happened; every other kind that did not pass says at least its score.
 */
function evaluatorReasons(e: EvaluatorResult, prefix: string): string[] {
  const name = `${prefix}${e.name}`;
  const children = e.children ?? [];
  const fromChildren = children.flatMap((child) => evaluatorReasons(child, `${name} › `));
  if (e.verdict === 'error') {
    if (children.some((child) => child.verdict === 'error')) return fromChildren;
    return [...fromChildren, `${name}: error: ${errorLine(e.error) || 'no reason given'}`];
  }
  const lines: string[] = [];
  for (const k of e.checks ?? [])
    if (checkFailed(k))
      lines.push(
        `${name} › ${checkLabel(k)}${k.score !== undefined ? ` ${k.score}/10` : ''}${checkSamples(k) ? ` [${checkSamples(k)}]` : ''}: ${k.reasoning ?? 'not satisfied'}`,
      );
  if (e.verdict !== 'pass' && e.mode !== 'aggregate')
    for (const m of e.misses ?? []) if (!(e.checks ?? []).length) lines.push(`${name}: ${m}`);
  lines.push(...fromChildren);
  if (e.verdict !== 'pass' && lines.length === 0)
    lines.push(`${name}: score ${e.score.toFixed(2)}${e.reasoning ? `: ${e.reasoning}` : ''}`);
  // promptfoo transforms: what this check graded, beside the case's answer (its original).
  if (e.verdict !== 'pass' && e.transformed_output !== undefined)
    lines.push(`${name}: graded after its transform: ${JSON.stringify(shorten(e.transformed_output, 160))}`);
  return lines;
}

/** The one-line reason of a case's table row: its error, its gating violations, else the first reason. */
export function caseReason(c: CaseResult): string {
  if (c.verdict === 'pass') return '';
  if (c.verdict !== 'error' && c.gating_violations.length > 0) return c.gating_violations.join('; ');
  const first = whyNot(c)[0] ?? '';
  return c.verdict === 'error' && !first.includes('error: ') ? `error: ${first}` : first;
}
