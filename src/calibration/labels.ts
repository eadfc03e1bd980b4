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

/**
 * One check of one evaluator: the names from the case down to the `llm_judge` that grades it
 * (composites included) and the rubric item's id. Ids are unique within one rubrics list only
 * (plain-string items are `rubric-1`, `rubric-2`… in every list), so the id alone is no address.
 */
interface CheckAddress {
  evaluator: string[];
  check: string;
}

/** A label line matched to its case, with each label's check kind and the one check it is about. */
export interface MatchedLabel extends LabelLine {
  suitePath: string;
  evalCase: EvalCase;
  kinds: Record<string, CheckKind['kind']>;
  /** Per label key, the check it addresses and the evaluator config that grades it. */
  targets: Record<string, CheckTarget>;
}

interface CheckTarget extends CheckAddress {
  config: EvaluatorConfig;
  kind: CheckKind['kind'];
  /** The label key that addresses it on its own when its id is shared in its case (`tone/rubric-1`). */
  qualified?: string;
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

/** Every check a case's evaluators grade (composites' children too), in declaration order. */
function caseChecks(evaluators: readonly EvaluatorConfig[], above: string[] = []): CheckTarget[] {
  return evaluators.flatMap((e) => {
    const path = [...above, e.name];
    if (e.type === 'composite') return caseChecks(e.children, path);
    if (e.type !== 'llm_judge' || !e.rubrics) return [];
    const kind = e.rubrics.mode === 'checklist' ? ('checklist' as const) : ('range' as const);
    return e.rubrics.items.map((item) => ({ evaluator: path, check: item.id, config: e, kind }));
  });
}

/** How a label key may name a check: its id, or `<evaluator>/<id>` (the judge's name, or every name from the case down). */
const qualifiedForms = (t: CheckAddress) => [
  `${t.evaluator.join('/')}/${t.check}`,
  `${t.evaluator[t.evaluator.length - 1]}/${t.check}`,
];

/**
 * The checks a label key addresses: those whose id it is, and those it names qualified. A key
 * naming more than one (an id shared by two evaluators, an id that is also another check's
 * qualified form) names them all, and the caller refuses it as ambiguous; only a full path from
 * the case down, naming one check and no id, is preferred over the short forms it also matches.
 */
function resolveKey(key: string, checks: readonly CheckTarget[]): CheckTarget[] {
  const byId = checks.filter((t) => t.check === key);
  const byForm = checks.filter((t) => qualifiedForms(t).includes(key));
  if (byForm.length === 0) return byId;
  const byPath = byForm.filter((t) => qualifiedForms(t)[0] === key);
  if (byId.length === 0 && byPath.length === 1) return byPath;
  return [...new Set([...byId, ...byForm])];
}

/** The shortest qualified form that names only this check in its case. */
function qualifiedName(t: CheckTarget, checks: readonly CheckTarget[]): string | undefined {
  if (checks.filter((o) => o.check === t.check).length < 2) return undefined;
  return [...qualifiedForms(t)].reverse().find((form) => {
    const named = resolveKey(form, checks);
    return named.length === 1 && named[0] === t;
  });
}

const pathText = (t: CheckAddress) => t.evaluator.join(' › ');

/** Why a label key names more than one check, and how to write it so it names one. */
function ambiguity(
  key: string,
  l: LabelLine,
  found: readonly CheckTarget[],
  checks: readonly CheckTarget[],
): string {
  const forms = found.map((t) => qualifiedName(t, checks));
  const how = forms.every((f) => f !== undefined)
    ? `write the label's check as ${forms.map((f) => `'${excerpt(f)}'`).join(' or ')}`
    : "give those evaluators distinct names, then label the check as '<evaluator>/<id>'";
  return `'${excerpt(key)}' is a check of ${found.length} evaluators of case '${excerpt(l.id)}' (${found.map((t) => excerpt(pathText(t))).join('; ')}): ${how}`;
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
    const targets: Record<string, CheckTarget> = {};
    let ok = true;
    for (const [check, value] of Object.entries(l.labels)) {
      const found = resolveKey(check, checks);
      const target = found[0];
      const want = typeof value === 'boolean' ? 'checklist' : 'range';
      if (!target) {
        sink.error(
          pos,
          'unknown-check',
          `case '${excerpt(l.id)}' has no rubric item '${excerpt(check)}'${hint(
            check,
            checks.map((t) => t.check),
          )}`,
        );
        ok = false;
      } else if (found.length > 1) {
        sink.error(pos, 'ambiguous-check', ambiguity(check, l, found, checks));
        ok = false;
      } else if (target.kind !== want) {
        sink.error(
          pos,
          'label-type',
          `'${excerpt(check)}' is a ${target.kind === 'checklist' ? 'checklist item: label it true or false' : '0-10 range criterion: label it with an integer 0..10'}`,
        );
        ok = false;
      } else if (Object.values(targets).some((t) => t.config === target.config && t.check === target.check)) {
        sink.error(pos, 'duplicate-check', `'${excerpt(check)}' labels a check this line already labels`);
        ok = false;
      } else {
        kinds[check] = target.kind;
        const qualified = qualifiedName(target, checks);
        targets[check] = qualified ? { ...target, qualified } : target;
      }
    }
    if (ok) matched.push({ ...l, suitePath: suite.path, evalCase, kinds, targets });
  }
  return { matched, diagnostics: sink.items };
}
