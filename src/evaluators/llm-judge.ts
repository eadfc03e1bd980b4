import { type Judge, type JudgeAnswer, JudgeError, type JudgeRequest } from '../judge/judge.js';
import {
  checklistPrompt,
  freeformPrompt,
  scoreRangePrompt,
  templatePrompt,
  type CaseContext,
} from '../judge/prompts.js';
import {
  checklistWireSchema,
  freeformWireSchema,
  scoreRangeWireSchema,
  validateChecklist,
  validateFreeform,
  validateScoreRange,
  validateStatedChecklist,
} from '../judge/schemas.js';
import { sampleOrder } from '../judge/sampling.js';
import { type EvaluatorResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { type ScoredChecks, verdictForScore } from '../rubric/scoring.js';
import { type LlmJudgeConfig, type PromptTemplate } from '../suite/types.js';
import { combineChecklist, combineFreeform, combineScoreRanges, combineUsage } from './combine-samples.js';
import { type SampleSlot } from './sample-book.js';
import { type StatedChecklistAnswer, statedChecklistScore } from './stated-score.js';

/**
 * One `llm_judge` evaluator on one case: exactly one judge call when the answer is valid,
 * whatever the number of rubric items, unless judge samples are on (`slot`): then as many samples
 * as the slot's book asks for, combined. A judge that cannot give a valid answer yields `error`.
 */
export async function runLlmJudge(
  config: Pick<LlmJudgeConfig, 'name' | 'weight' | 'rubrics' | 'prompt' | 'statedScore'>,
  ctx: CaseContext,
  judge: Judge,
  extraVars: Record<string, string> = {},
  slot: SampleSlot | null = null,
): Promise<EvaluatorResult> {
  const base = { name: config.name, type: 'llm_judge' as const, weight: config.weight };
  try {
    const rubrics = config.rubrics;
    if (rubrics?.mode === 'checklist') {
      const ids = rubrics.items.map((i) => i.id);
      const validate = config.statedScore ? validateStatedChecklist : validateChecklist;
      const s = await ask<StatedChecklistAnswer>(judge, slot, (i) => ({
        prompt: checklistPrompt(ctx, sampleOrder(rubrics.items, i)),
        schemaName: 'checklist_verdict',
        wireSchema: checklistWireSchema(ids),
        validate: (d) => validate(d, ids),
      }));
      const c = combineChecklist(rubrics.items, s.answers, slot !== null);
      const stated = config.statedScore ? statedChecklistScore(rubrics.items, s.answers, c.scored) : null;
      if (!stated) return rubricResult(base, 'checklist', c.scored, s, c.representative, c.warnings, slot);
      const scored = { ...c.scored, score: stated.score, verdict: stated.verdict };
      const result = rubricResult(base, 'checklist', scored, s, c.representative, c.warnings, slot);
      // The sampled number is the stated score, not the items (sample-doubt.ts reads it so).
      if (slot) result.sample_scores = stated.sampleScores;
      return result;
    }
    if (rubrics?.mode === 'score_range') {
      const ids = rubrics.items.map((i) => i.id);
      const s = await ask(judge, slot, (i) => ({
        prompt: scoreRangePrompt(ctx, sampleOrder(rubrics.items, i)),
        schemaName: 'score_range_verdict',
        wireSchema: scoreRangeWireSchema(ids),
        validate: (d) => validateScoreRange(d, ids),
      }));
      const c = combineScoreRanges(rubrics.items, s.answers, slot !== null);
      return rubricResult(base, 'score_range', c.scored, s, c.representative, c.warnings, slot);
    }
    return await runFreeform(base, ctx, judge, config.prompt, extraVars, slot);
  } catch (err) {
    return judgeErrorResult(base, err);
  }
}

/**
 * A judged evaluator whose judge could not give a valid answer: an `error` that keeps the calls it
 * cost. Anything other than a JudgeError is a bug of ours and is thrown on.
 */
export function judgeErrorResult(
  base: Pick<EvaluatorResult, 'name' | 'type' | 'weight'>,
  err: unknown,
): EvaluatorResult {
  if (!(err instanceof JudgeError)) throw err;
  return { ...base, score: 0, verdict: 'error', error: err.message, gating_violations: [], usage: err.usage };
}

interface Samples<T> {
  answers: JudgeAnswer<T>[];
  usage: Usage;
}

/** One call without samples; with them, the slot's samples (earlier ones from its book). */
async function ask<T>(
  judge: Judge,
  slot: SampleSlot | null,
  build: (index: number) => JudgeRequest<T>,
): Promise<Samples<T>> {
  if (!slot) {
    const a = await judge.judge(build(0));
    return { answers: [a], usage: a.usage };
  }
  const r = await slot.book.take(slot.path, build, (req, i) => judge.judge(req, i));
  return { answers: r.answers, usage: combineUsage(r.answers, r.staleUsage) };
}

async function runFreeform(
  base: Pick<EvaluatorResult, 'name' | 'type' | 'weight'>,
  ctx: CaseContext,
  judge: Judge,
  template: PromptTemplate | null,
  extraVars: Record<string, string>,
  slot: SampleSlot | null,
): Promise<EvaluatorResult> {
  const s = await ask(judge, slot, () => ({
    prompt: template ? templatePrompt(ctx, template.template, extraVars) : freeformPrompt(ctx),
    schemaName: 'score_verdict',
    wireSchema: freeformWireSchema,
    validate: validateFreeform,
  }));
  // Validated in 0..1 (a score out of scale was re-asked, never clamped); samples: the lower median.
  const c = combineFreeform(s.answers);
  const result: EvaluatorResult = {
    name: base.name,
    type: base.type,
    weight: base.weight,
    mode: template ? 'prompt' : 'freeform',
    score: c.score,
    verdict: verdictForScore(c.score),
    hits: c.representative.hits ?? [],
    misses: c.representative.misses ?? [],
    reasoning: c.representative.reasoning ?? null,
    gating_violations: [],
    usage: s.usage,
  };
  if (c.warnings.length > 0) result.warnings = c.warnings;
  if (slot) {
    result.samples = s.answers.length;
    result.sample_scores = c.scores;
  }
  return result;
}

/**
 * The evaluator result of a rubric judged item by item (checklist or score ranges). Written out
 * rather than spread: one is built per case, and Node 20 builds spread objects ~100 times slower.
 */
function rubricResult(
  base: Pick<EvaluatorResult, 'name' | 'type' | 'weight'>,
  mode: 'checklist' | 'score_range',
  s: ScoredChecks,
  samples: Samples<{ overall_reasoning?: string | null }>,
  representative: number,
  warningList: string[],
  slot: SampleSlot | null,
): EvaluatorResult {
  const result: EvaluatorResult = {
    name: base.name,
    type: base.type,
    weight: base.weight,
    mode,
    score: s.score,
    verdict: s.verdict,
    checks: s.checks,
    gating_violations: s.gating_violations,
    reasoning: samples.answers[representative]?.value.overall_reasoning ?? null,
    usage: samples.usage,
  };
  if (warningList.length > 0) result.warnings = warningList;
  if (slot) result.samples = samples.answers.length;
  return result;
}
