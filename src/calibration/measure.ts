import { addUsage, emptyUsage, type EvaluatorResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { type ExecDeps } from '../exec/deps.js';
import { type Redactor } from '../exec/redact.js';
import { runEvaluators } from '../evaluators/evaluate.js';
import { judgedAnswer } from '../evaluators/judged-answer.js';
import { type Judge } from '../judge/judge.js';
import { type EvalCase, type EvaluatorConfig } from '../suite/types.js';
import { type MatchedLabel } from './labels.js';
import { binaryAgreement, type BinaryPair, rangeAgreement, type ScorePair } from './stats.js';
import { type BinaryAgreement, type CalibrationRow } from '../core/calibration-results.js';

export interface CalibrationReport {
  /** Worst first: lowest κ, then checks without one, then by lowest agreement. */
  rows: CalibrationRow[];
  /** Every checklist pair pooled (ranges apart). */
  overall: BinaryAgreement;
  labels: number;
  /** Labelled answers the judge could not grade (an error), with the reason. */
  errors: { line: number; suite: string; id: string; error: string }[];
  /** Each labelled answer where the judge and the person differ on some check, to re-label. */
  disagreements: Disagreement[];
  usage: Usage;
}

export interface Disagreement {
  line: number;
  suite: string;
  id: string;
  answer: string;
  rater: string | null;
  checks: { check: string; judge: boolean | number; human: boolean | number }[];
}

export interface MeasureDeps {
  /** The judge that grades a case in a run (its target's `judge_target`, else the default); null: none. */
  judgeFor(c: EvalCase): Judge | null;
  exec: ExecDeps;
  redactor: Redactor;
  concurrency: number;
  signal?: AbortSignal;
}

/** The llm_judge evaluators a label's checks are graded by, each once, in the case's order: nothing else runs. */
function gradingEvaluators(label: MatchedLabel): EvaluatorConfig[] {
  const configs = [...new Set(Object.values(label.targets).map((t) => t.config))];
  return configs.map((e) => ({ ...e, negate: undefined }));
}

/** The judge's verdict on each labelled check, read from the one evaluator that check belongs to. */
function verdictsOf(
  label: MatchedLabel,
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
) {
  const byConfig = [...new Set(Object.values(label.targets).map((t) => t.config))];
  const out = new Map<string, boolean | number>();
  for (const [key, t] of Object.entries(label.targets)) {
    const result = results[byConfig.indexOf(t.config)];
    if (!result || configs.length !== results.length) continue;
    const c = result.checks?.find((x) => x.id === t.check);
    if (c?.satisfied !== undefined) out.set(key, c.satisfied);
    else if (c?.score !== undefined) out.set(key, c.score);
  }
  return out;
}

interface Graded {
  label: MatchedLabel;
  verdicts: Map<string, boolean | number>;
  error: string | null;
  usage: Usage;
}

/** One labelled answer through the evaluators the run would use: redacted and capped the same way, so the cache is shared. */
async function gradeLabel(label: MatchedLabel, deps: MeasureDeps): Promise<Graded> {
  const configs = gradingEvaluators(label);
  const judge = deps.judgeFor(label.evalCase);
  if (!judge) return { label, verdicts: new Map(), error: 'no judge configured', usage: emptyUsage() };
  const raw = { text: label.answer, outputMessages: null, durationMs: null, tokenUsage: null, costUsd: null };
  const { answer } = judgedAnswer(raw, deps.redactor);
  const results = await runEvaluators(configs, { evalCase: label.evalCase, answer, judge, exec: deps.exec });
  const usage = results.reduce((u, r) => addUsage(u, r.usage), emptyUsage());
  const failed = results.filter((r) => r.verdict === 'error');
  const error = failed.length ? failed.map((r) => `${r.name}: ${r.error ?? 'error'}`).join('; ') : null;
  return { label, verdicts: verdictsOf(label, configs, results), error, usage };
}

/**
 * Judges every labelled answer (a worker pool of `concurrency`), then pairs each check's verdict
 * with the person's label and measures agreement per check and pooled.
 */
export async function measureJudge(
  labels: readonly MatchedLabel[],
  deps: MeasureDeps,
): Promise<CalibrationReport> {
  const graded: Graded[] = new Array<Graded>(labels.length);
  let next = 0;
  const workers = Math.min(labels.length, Math.max(1, deps.concurrency));
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < labels.length && !deps.signal?.aborted) {
        const at = next++;
        graded[at] = await gradeLabel(labels[at]!, deps);
      }
    }),
  );
  return calibrationReport(graded.filter(Boolean));
}

/** The pairs, grouped by check, measured; pure. */
function calibrationReport(graded: readonly Graded[]): CalibrationReport {
  const groups = new Map<
    string,
    {
      suite: string;
      id: string;
      check: string;
      evaluator: string[];
      qualified?: string;
      kind: 'checklist' | 'range';
      pairs: (BinaryPair | ScorePair)[];
    }
  >();
  const errors: CalibrationReport['errors'] = [];
  const disagreements: Disagreement[] = [];
  const usage = emptyUsage();
  for (const g of graded) {
    addUsage(usage, g.usage);
    const { label } = g;
    if (g.error) errors.push({ line: label.line, suite: label.suitePath, id: label.id, error: g.error });
    const differ: Disagreement['checks'] = [];
    for (const [check, human] of Object.entries(label.labels)) {
      const judge = g.verdicts.get(check);
      if (judge === undefined) continue;
      const { kind, evaluator, check: id, qualified } = label.targets[check]!;
      const key = JSON.stringify([label.suitePath, label.id, evaluator, id]);
      let group = groups.get(key);
      if (!group) {
        group = { suite: label.suitePath, id: label.id, check: id, evaluator, kind, pairs: [] };
        if (qualified) group.qualified = qualified;
        groups.set(key, group);
      }
      group.pairs.push({ judge, human } as BinaryPair | ScorePair);
      if (judge !== human) differ.push({ check, judge, human });
    }
    if (differ.length)
      disagreements.push({
        line: label.line,
        suite: label.suitePath,
        id: label.id,
        answer: label.answer,
        rater: label.rater,
        checks: differ,
      });
  }
  const rows: CalibrationRow[] = [...groups.values()].map(({ pairs, ...g }) => ({
    ...g,
    ...(g.kind === 'checklist'
      ? binaryAgreement(pairs as BinaryPair[])
      : rangeAgreement(pairs as ScorePair[])),
  }));
  rows.sort(worstFirst);
  const pooled = [...groups.values()]
    .filter((g) => g.kind === 'checklist')
    .flatMap((g) => g.pairs as BinaryPair[]);
  return { rows, overall: binaryAgreement(pooled), labels: graded.length, errors, disagreements, usage };
}

function worstFirst(a: CalibrationRow, b: CalibrationRow): number {
  if (a.kappa !== null && b.kappa !== null && a.kappa !== b.kappa) return a.kappa - b.kappa;
  if ((a.kappa === null) !== (b.kappa === null)) return a.kappa === null ? 1 : -1;
  const ag = (a.agreement ?? 1) - (b.agreement ?? 1);
  if (ag !== 0) return ag;
  return `${a.suite}#${a.id}#${a.qualified ?? a.check}`.localeCompare(
    `${b.suite}#${b.id}#${b.qualified ?? b.check}`,
  );
}
