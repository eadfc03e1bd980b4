import { createHash } from 'node:crypto';
import { writeFileNoFollow } from '../core/safe-write.js';
import {
  type CaseResult,
  type CheckerResult,
  type EffectRow as EffectRowResult,
  type EvaluatorResult,
  type RunResults,
} from '../core/results.js';
import { overallRows } from '../core/effect-line.js';
import { whyNot } from './case-reason.js';
import { showControls } from './inert.js';
import { SCRIPT, STYLE, TEMPLATE } from './html/assets.js';

/**
 * The HTML report (`report-html`, `--html`; README "HTML report"): one self-contained file that
 * opens offline. Its only script is the bundled one, allowed by its sha256 in a
 * Content-Security-Policy that forbids everything else (no request, no other script, no eval).
 * The run goes in as JSON inside a `<script type="application/json">` with every `<` escaped, so
 * no text can close that element, and the script puts every text on the page with textContent:
 * nothing from an answer, a judge or the pull request is ever read as markup.
 */

/** One row of the effect (docs/effect.md) as the page shows it: the overall rows, then each suite's. */
type EffectRow = EffectRowResult & { readonly suite: string | null };

/** The page lists the cases that need a look first: errors, failures, the undecided, then the rest. */
const RANK = { error: 0, fail: 1, inconclusive: 2, borderline: 3, skipped: 4, pass: 5 } as const;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** The policy: the page's own style and script by hash, nothing else from anywhere. */
function reportPolicy(): string {
  return [
    "default-src 'none'",
    `script-src 'sha256-${sha256(SCRIPT)}'`,
    `style-src 'sha256-${sha256(STYLE)}'`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The report as one HTML document. `redact` is applied to every text taken from the run. */
export function renderHtmlReport(
  results: RunResults,
  o: { redact: (text: string) => string; runUrl?: string | null },
): string {
  const data = JSON.stringify(pageData(results, o.runUrl ?? null), (_k, v: unknown) =>
    typeof v === 'string' ? showControls(o.redact(v)) : v,
  );
  const title = htmlEscape(headlineText(results));
  const fill: Record<string, string> = {
    CSP: reportPolicy(),
    TITLE: title,
    STYLE,
    // `<` as \u003c: the JSON stays the same value, and no `</script>` or `<!--` can appear in it.
    DATA: data.replace(/</g, '\\u003c'),
    SCRIPT,
  };
  // Split once, so that no filled-in text is searched for placeholders again.
  return TEMPLATE.split(/\{\{(\w+)\}\}/)
    .map((part, i) => (i % 2 === 1 ? (fill[part] ?? '') : part))
    .join('');
}

export function writeHtmlReport(
  file: string,
  results: RunResults,
  o: { redact: (text: string) => string; runUrl?: string | null },
): void {
  writeFileNoFollow(file, renderHtmlReport(results, o));
}

function headlineText(r: RunResults): string {
  const failing = r.counts.fail + r.counts.error;
  return `rubric-eval: ${r.verdict} · score ${r.score.toFixed(2)}${failing ? ` · ${failing} failing` : ''}`;
}

function htmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the page shows, and nothing else (usage, hashes and timings stay in the results file). */
function pageData(r: RunResults, runUrl: string | null) {
  const suites = r.suites.map((s) => ({ path: s.path, description: s.description }));
  const index = new Map(r.suites.map((s, i) => [s.path, i]));
  const cases = r.suites
    .flatMap((s) => s.cases.map((c) => ({ s: index.get(s.path)!, c })))
    .sort((a, b) => RANK[a.c.verdict] - RANK[b.c.verdict] || a.c.score - b.c.score || a.s - b.s)
    .map(({ s, c }) => caseData(s, c));
  const b = r.baseline;
  return {
    verdict: r.verdict,
    score: r.score,
    counts: r.counts,
    run_url: runUrl,
    has_baseline: !!b,
    baseline_label: b
      ? `against ${b.in_checkout ? `the file ${b.file ?? ''}` : `base ${b.commit?.slice(0, 7) ?? b.file ?? ''}`}`
      : null,
    effect: effectRows(r),
    errors: r.errors,
    warnings: r.warnings,
    rubric: r.rubric ? rubricData(r.rubric) : null,
    suites,
    cases,
  };
}

/** The why-list; a case whose evaluators name nothing (skipped, gated) shows its violations. */
function whyOf(c: CaseResult): string[] {
  const why = whyNot(c);
  return why.length > 0 ? why : c.gating_violations;
}

function caseData(s: number, c: CaseResult) {
  return {
    s,
    id: c.id,
    verdict: c.verdict,
    score: c.score,
    ...(c.line ? { line: c.line } : {}),
    answer: c.answer,
    ...(c.error ? { error: c.error } : {}),
    why: c.verdict === 'pass' ? [] : whyOf(c),
    ev: c.evaluators.map(evaluatorData),
    base: c.baseline
      ? {
          verdict: c.baseline.verdict,
          score: c.baseline.score,
          change: c.baseline.change,
          ...(c.baseline.answer !== undefined ? { answer: c.baseline.answer } : {}),
        }
      : null,
    ...(c.pass_rate !== undefined ? { pass_rate: c.pass_rate, repeats: c.repeats } : {}),
  };
}

interface EvaluatorData {
  name: string;
  type: string;
  verdict: string;
  score: number;
  error?: string;
  reasoning?: string;
  checks?: {
    id: string;
    text?: string;
    satisfied?: boolean;
    score?: number;
    required: boolean;
    reasoning: string | null;
  }[];
  hits?: string[];
  misses?: string[];
  children?: EvaluatorData[];
}

function evaluatorData(e: EvaluatorResult): EvaluatorData {
  return {
    name: e.name,
    type: e.type,
    verdict: e.verdict,
    score: e.score,
    ...(e.error ? { error: e.error } : {}),
    ...(e.reasoning ? { reasoning: e.reasoning } : {}),
    ...(e.checks?.length
      ? {
          checks: e.checks.map((k) => ({
            id: k.id,
            ...(k.text ? { text: k.text } : {}),
            ...(k.satisfied !== undefined ? { satisfied: k.satisfied } : {}),
            ...(k.score !== undefined ? { score: k.score } : {}),
            required: k.required,
            reasoning: k.reasoning,
          })),
        }
      : {}),
    ...(e.hits?.length ? { hits: e.hits } : {}),
    ...(e.misses?.length ? { misses: e.misses } : {}),
    ...(e.children?.length ? { children: e.children.map(evaluatorData) } : {}),
  };
}

function rubricData(r: CheckerResult) {
  return {
    path: r.path,
    verdict: r.verdict,
    gates: r.gates.map((g) => ({
      command: g.command,
      verdict: g.verdict,
      exit_code: g.exit_code,
      timed_out: g.timed_out,
      output: g.output,
    })),
    checks: r.checks.map((k) => ({
      id: k.id,
      kind: k.kind,
      text: k.text,
      satisfied: k.satisfied,
      reasoning: k.reasoning,
    })),
    feedback: r.feedback ?? r.error ?? null,
  };
}

/** The effect (docs/effect.md) when the run was compared with a baseline: overall first, then per suite. */
function effectRows(r: RunResults): EffectRow[] | null {
  if (!r.effect) return null;
  const rows: EffectRow[] = [
    ...overallRows(r.effect).map((row) => ({ ...row, suite: null })),
    ...r.effect.suites.flatMap((s) => s.rows.map((row) => ({ ...row, suite: s.path }))),
  ];
  return rows.length > 0 ? rows : null;
}
