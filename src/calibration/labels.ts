import { type Diagnostic, DiagnosticSink, excerpt } from '../core/diagnostics.js';
import { didYouMean } from '../core/did-you-mean.js';

const hint = (word: string, known: Iterable<string>) => {
  const near = didYouMean(word, known);
  return near ? ` (did you mean '${near}'?)` : '';
};
import { type EvalCase, type EvalSuite, type EvaluatorConfig } from '../suite/types.js';

/** One human judgement of one answer to one case, with where it was written. */
export interface LabelLine {
  suite: string;
  id: string;
  answer: string;
  labels: Record<string, boolean | number>;
  rater: string | null;
  line: number;
}

/** A check the judge grades: a checklist item (yes/no) or a 0-10 range criterion. */
interface CheckKind {
  kind: 'checklist' | 'range';
}

/** A label line matched to its case, with each label's check kind. */
export interface MatchedLabel extends LabelLine {
  suitePath: string;
  evalCase: EvalCase;
  kinds: Record<string, CheckKind['kind']>;
}

const LIMIT = 200_000;

/** Reads the JSONL; every malformed line is an error naming file:line and the rule it breaks. */
export function parseLabels(text: string, file: string): { lines: LabelLine[]; diagnostics: Diagnostic[] } {
  const sink = new DiagnosticSink(file);
  const lines: LabelLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const pos = { line: i + 1, column: 1 };
    if (lines.length >= LIMIT) {
      if (lines.length === LIMIT) sink.error(pos, 'too-many', `more than ${LIMIT} labels`);
      return;
    }
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch (err) {
      sink.error(pos, 'json', `not valid JSON: ${(err as Error).message}`);
      return;
    }
    const problem = lineProblem(row);
    if (problem) return sink.error(pos, 'label', problem);
    const r = row as Omit<LabelLine, 'line' | 'rater'> & { rater?: string; id: string | number };
    lines.push({
      suite: normalise(r.suite),
      id: String(r.id),
      answer: r.answer,
      labels: r.labels,
      rater: r.rater ?? null,
      line: i + 1,
    });
  });
  return { lines, diagnostics: sink.items };
}

function lineProblem(row: unknown): string | null {
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    return 'each line is an object {"suite", "id", "answer", "labels"}';
  const r = row as Record<string, unknown>;
  if (typeof r.suite !== 'string' || r.suite === '') return 'needs "suite" (the suite file\'s path)';
  if (typeof r.id !== 'string' && typeof r.id !== 'number') return 'needs "id" (the case id)';
  if (typeof r.answer !== 'string') return 'needs "answer" (the text that was judged, a string)';
  if (r.rater !== undefined && r.rater !== null && typeof r.rater !== 'string')
    return '"rater" must be a string';
  const labels = r.labels;
  if (
    typeof labels !== 'object' ||
    labels === null ||
    Array.isArray(labels) ||
    Object.keys(labels).length === 0
  )
    return 'needs "labels": {"<check id>": true | false | 0..10}';
  for (const [check, v] of Object.entries(labels as Record<string, unknown>))
    if (typeof v !== 'boolean' && !(Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 10))
      return `label '${excerpt(check)}' must be true, false or an integer 0..10 (got ${excerpt(JSON.stringify(v) ?? String(v))})`;
  return null;
}

const normalise = (p: string) => p.replace(/\\/g, '/').replace(/^(\.\/)+/, '');

/** The checks a case's evaluators grade, by id (composites' children too). */
function caseChecks(evaluators: readonly EvaluatorConfig[]): Map<string, CheckKind['kind']> {
  const out = new Map<string, CheckKind['kind']>();
  for (const e of evaluators) {
    if (e.type === 'composite') for (const [k, v] of caseChecks(e.children)) if (!out.has(k)) out.set(k, v);
    if (e.type !== 'llm_judge' || !e.rubrics) continue;
    const kind = e.rubrics.mode === 'checklist' ? 'checklist' : 'range';
    for (const item of e.rubrics.items) if (!out.has(item.id)) out.set(item.id, kind);
  }
  return out;
}

/**
 * Each line matched to a loaded suite, case and checks: an unknown suite, case or check id, or a
 * yes/no label on a 0-10 criterion (or the reverse), is an error at the line.
 */
export function matchLabels(
  lines: readonly LabelLine[],
  suites: readonly EvalSuite[],
  file: string,
): { matched: MatchedLabel[]; diagnostics: Diagnostic[] } {
  const sink = new DiagnosticSink(file);
  const bySuite = new Map(suites.map((s) => [normalise(s.path), s]));
  const matched: MatchedLabel[] = [];
  for (const l of lines) {
    const pos = { line: l.line, column: 1 };
    const suite = bySuite.get(l.suite);
    if (!suite) {
      sink.error(
        pos,
        'unknown-suite',
        `no loaded suite '${excerpt(l.suite)}'${hint(l.suite, bySuite.keys())}`,
      );
      continue;
    }
    const evalCase = suite.cases.find((c) => c.id === l.id);
    if (!evalCase) {
      sink.error(
        pos,
        'unknown-case',
        `suite ${suite.path} has no case '${excerpt(l.id)}'${hint(
          l.id,
          suite.cases.map((c) => c.id),
        )}`,
      );
      continue;
    }
    const checks = caseChecks(evalCase.evaluators);
    const kinds: Record<string, CheckKind['kind']> = {};
    let ok = true;
    for (const [check, value] of Object.entries(l.labels)) {
      const kind = checks.get(check);
      const want = typeof value === 'boolean' ? 'checklist' : 'range';
      if (!kind) {
        sink.error(
          pos,
          'unknown-check',
          `case '${excerpt(l.id)}' has no rubric item '${excerpt(check)}'${hint(check, checks.keys())}`,
        );
        ok = false;
      } else if (kind !== want) {
        sink.error(
          pos,
          'label-type',
          `'${excerpt(check)}' is a ${kind === 'checklist' ? 'checklist item: label it true or false' : '0-10 range criterion: label it with an integer 0..10'}`,
        );
        ok = false;
      } else kinds[check] = kind;
    }
    if (ok) matched.push({ ...l, suitePath: suite.path, evalCase, kinds });
  }
  return { matched, diagnostics: sink.items };
}
