import { type CandidateAnswer } from '../evaluators/candidate-answer.js';
import { candidateFromTarget } from '../evaluators/context.js';
import { type ExecDeps } from '../exec/deps.js';
import { runEvaluators } from '../evaluators/evaluate.js';
import { type SampleTopUp } from '../evaluators/case-samples.js';
import { type ItemVotes, type NoiseModel } from '../evaluators/verdict-posterior.js';
import { type Judge } from '../judge/judge.js';
import { CancelledError } from '../exec/limiter.js';
import {
  addUsage,
  type AnswerCut,
  type CaseResult,
  emptyUsage,
  type EvaluatorResult,
} from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { judgedAnswer } from '../evaluators/judged-answer.js';
import { type CaseAggregate, scoreCase } from '../evaluators/case-scoring.js';
import { type SpendMeter } from './budget.js';
import { usesLlm } from './judge-endpoint.js';
import { type PlannedCase } from './plan.js';

/**
 * One case: the target's answer, then its evaluators. Returns undefined when the run was
 * cancelled mid-case (not a finished case); every other failure is an `error` case with the reason.
 */
export async function executeCase(
  planned: PlannedCase,
  healthError: string | null,
  judge: Judge | null,
  exec: ExecDeps,
  signal: AbortSignal | undefined,
  spend: SpendMeter | null = null,
  /** Which answer of a repeated case this is (1-based; README "Repeats"); undefined when it is not repeated. */
  repeat?: number,
  /** `judge-samples: auto`: where the finished case offers the run more samples (sample-top-up.ts). */
  offer?: (topUp: CaseTopUp) => void,
): Promise<CaseResult | undefined> {
  const { evalCase: c, target } = planned;
  const started = Date.now();
  const base = {
    id: c.id,
    ...(c.label !== undefined ? { label: c.label } : {}),
    definition_hash: planned.definitionHash,
    line: c.pos.line,
    ...(c.sourcePath ? { file: c.sourcePath } : {}),
    target: target.runner.name,
    gating_violations: [] as string[],
  };
  const errorCase = (message: string, answer: string | null = null): CaseResult => ({
    ...base,
    verdict: 'error',
    score: 0,
    evaluators: [],
    answer,
    error: message,
    duration_ms: Date.now() - started,
  });
  if (healthError) return errorCase(healthError);
  const got = await answerCase(planned, exec, signal, spend, repeat);
  if (!got) return undefined;
  if ('error' in got) return errorCase(got.error);
  const { answer, cut } = got;
  try {
    if (!judge && c.evaluators.some(usesLlm))
      return errorCase('no judge configured for an llm_judge evaluator', answer.text);
    let sampled: SampleTopUp | undefined;
    const evaluators = await runEvaluators(c.evaluators, {
      evalCase: c,
      answer,
      judge: judge!,
      exec,
      ...(offer ? { offer: (t: SampleTopUp) => (sampled = t) } : {}),
    });
    if (signal?.aborted) return undefined;
    const finish = (ev: EvaluatorResult[], ms: number) =>
      finishedCase(
        base,
        scoreCase(c, ev),
        ev,
        answer.text,
        cut,
        ms,
        ev.reduce((u, e) => addUsage(u, e.usage), emptyUsage()),
      );
    const result = finish(evaluators, Date.now() - started);
    if (sampled && offer) offer(caseTopUp(sampled, result.duration_ms, finish));
    return result;
  } catch (err) {
    if (signal?.aborted) return undefined;
    // A bug of ours must not pass a case: it is an error with the reason.
    return errorCase(`internal error: ${(err as Error).stack ?? String(err)}`, answer.text);
  }
}

/** A finished case open to more judge samples: the case's result built again after each. */
export interface CaseTopUp {
  calls(): { first: number; extra: number };
  votes(): ItemVotes[][];
  doubt(model?: NoiseModel): number;
  maxCost(): number;
  more(): Promise<CaseResult>;
}

function caseTopUp(
  sampled: SampleTopUp,
  durationMs: number,
  finish: (ev: EvaluatorResult[], ms: number) => CaseResult,
): CaseTopUp {
  let ms = durationMs;
  return {
    calls: () => sampled.calls(),
    votes: () => sampled.votes(),
    doubt: (model) => sampled.doubt(model),
    maxCost: () => sampled.maxCost(),
    more: async () => {
      const started = Date.now();
      const ev = await sampled.more();
      ms += Date.now() - started;
      return finish(ev, ms);
    },
  };
}

/**
 * The answer half of a case (the record stage stops here): the target's answer, redacted and
 * capped before any evaluator sees it, whatever the target (answers files too). Undefined when
 * the run was cancelled; an error names why the target could not answer.
 */
export async function answerCase(
  planned: Pick<PlannedCase, 'evalCase' | 'target'>,
  exec: Pick<ExecDeps, 'redactor'>,
  signal: AbortSignal | undefined,
  spend: SpendMeter | null = null,
  /** Which answer of a repeated case this is (1-based); undefined when it is not repeated. */
  repeat?: number,
): Promise<{ answer: CandidateAnswer; cut: AnswerCut | null } | { error: string } | undefined> {
  try {
    // Redacted and capped before any evaluator sees it, whatever the target (answers files too).
    const given = await planned.target.runner.answer(planned.evalCase, 1, repeat);
    spend?.addTarget(given);
    return judgedAnswer(candidateFromTarget(given), exec.redactor);
  } catch (err) {
    if (signal?.aborted || err instanceof CancelledError) return undefined;
    return { error: (err as Error).message };
  }
}

/**
 * A finished case as the results file writes it: the case, its aggregate, then what was judged.
 * Written out rather than spread (one per case; Node 20 builds spread objects ~100 times slower);
 * the keys stay in the order the spread `{...base, ...agg, evaluators, answer, answer_cut?,
 * duration_ms, usage}` gave them, as results files are compared as text.
 */
export function finishedCase(
  base: Pick<CaseResult, 'id' | 'label' | 'definition_hash' | 'line' | 'target'>,
  agg: CaseAggregate,
  evaluators: EvaluatorResult[],
  answer: string,
  cut: AnswerCut | null,
  durationMs: number,
  usage: Usage,
): CaseResult {
  // Built key by key in that order (stores on a fresh literal are fast; a spread is not).
  const result: Partial<CaseResult> = { id: base.id };
  if (base.label !== undefined) result.label = base.label;
  result.definition_hash = base.definition_hash;
  result.line = base.line;
  result.target = base.target;
  result.gating_violations = agg.gating_violations;
  result.score = agg.score;
  result.verdict = agg.verdict;
  if (agg.unstable) result.unstable = true;
  result.evaluators = evaluators;
  result.answer = answer;
  if (cut) result.answer_cut = cut;
  result.duration_ms = durationMs;
  result.usage = usage;
  return result as CaseResult;
}
