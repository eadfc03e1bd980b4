import { type CandidateAnswer, candidateFromTarget } from '../evaluators/context.js';
import { type ExecDeps } from '../exec/deps.js';
import { runEvaluators } from '../evaluators/evaluate.js';
import { type Judge } from '../judge/judge.js';
import { CancelledError } from '../exec/limiter.js';
import { addUsage, type AnswerCut, type CaseResult, emptyUsage } from '../core/results.js';
import { judgedAnswer } from '../evaluators/judged-answer.js';
import { scoreCase } from '../evaluators/case-scoring.js';
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
): Promise<CaseResult | undefined> {
  const { evalCase: c, target } = planned;
  const started = Date.now();
  const base = {
    id: c.id,
    definition_hash: planned.definitionHash,
    line: c.pos.line,
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
  let answer: CandidateAnswer;
  let cut: AnswerCut | null;
  try {
    // Redacted and capped before any evaluator sees it, whatever the target (answers files too).
    ({ answer, cut } = judgedAnswer(candidateFromTarget(await target.runner.answer(c, 1)), exec.redactor));
  } catch (err) {
    if (signal?.aborted || err instanceof CancelledError) return undefined;
    return errorCase((err as Error).message);
  }
  try {
    if (!judge && c.evaluators.some(usesLlm))
      return errorCase('no judge configured for an llm_judge evaluator', answer.text);
    const evaluators = await runEvaluators(c.evaluators, { evalCase: c, answer, judge: judge!, exec });
    if (signal?.aborted) return undefined;
    const agg = scoreCase(c, evaluators);
    // Written out rather than spread: Node 20 builds spread objects ~100 times slower, per case.
    const result: CaseResult = {
      id: base.id,
      definition_hash: base.definition_hash,
      line: base.line,
      target: base.target,
      gating_violations: agg.gating_violations,
      score: agg.score,
      verdict: agg.verdict,
      evaluators,
      answer: answer.text,
      duration_ms: 0,
    };
    if (agg.unstable) result.unstable = true;
    if (cut) result.answer_cut = cut;
    result.duration_ms = Date.now() - started;
    result.usage = evaluators.reduce((u, e) => addUsage(u, e.usage), emptyUsage());
    return result;
  } catch (err) {
    if (signal?.aborted) return undefined;
    // A bug of ours must not pass a case: it is an error with the reason.
    return errorCase(`internal error: ${(err as Error).stack ?? String(err)}`, answer.text);
  }
}
