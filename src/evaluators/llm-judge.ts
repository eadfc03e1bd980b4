import { type Judge, type JudgeAnswer, JudgeError } from '../judge/judge.js';
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
} from '../judge/schemas.js';
import { type EvaluatorResult } from '../results.js';
import { type ScoredChecks, scoreChecklist, scoreRanges, verdictForScore } from '../rubric/scoring.js';
import { type LlmJudgeConfig, type PromptTemplate } from '../suite/types.js';

/**
 * One `llm_judge` evaluator on one case: exactly one judge call when the answer is valid,
 * whatever the number of rubric items. A judge that cannot give a valid answer yields `error`.
 */
export async function runLlmJudge(
  config: Pick<LlmJudgeConfig, 'name' | 'weight' | 'rubrics' | 'prompt'>,
  ctx: CaseContext,
  judge: Judge,
  extraVars: Record<string, string> = {},
): Promise<EvaluatorResult> {
  const base = { name: config.name, type: 'llm_judge' as const, weight: config.weight };
  try {
    const rubrics = config.rubrics;
    if (rubrics?.mode === 'checklist') {
      const ids = rubrics.items.map((i) => i.id);
      const a = await judge.judge({
        prompt: checklistPrompt(ctx, rubrics.items),
        schemaName: 'checklist_verdict',
        wireSchema: checklistWireSchema(ids),
        validate: (d) => validateChecklist(d, ids),
      });
      const answers = new Map(
        a.value.checks.map((c) => [c.id, { satisfied: c.satisfied, reasoning: c.reasoning ?? null }]),
      );
      return rubricResult(base, 'checklist', scoreChecklist(rubrics.items, answers), a);
    }
    if (rubrics?.mode === 'score_range') {
      const ids = rubrics.items.map((i) => i.id);
      const a = await judge.judge({
        prompt: scoreRangePrompt(ctx, rubrics.items),
        schemaName: 'score_range_verdict',
        wireSchema: scoreRangeWireSchema(ids),
        validate: (d) => validateScoreRange(d, ids),
      });
      const answers = new Map(
        a.value.checks.map((c) => [c.id, { score: c.score, reasoning: c.reasoning ?? null }]),
      );
      return rubricResult(base, 'score_range', scoreRanges(rubrics.items, answers), a);
    }
    return await runFreeform(base, ctx, judge, config.prompt, extraVars);
  } catch (err) {
    if (err instanceof JudgeError) {
      return {
        ...base,
        score: 0,
        verdict: 'error',
        error: err.message,
        gating_violations: [],
        usage: err.usage,
      };
    }
    throw err;
  }
}

async function runFreeform(
  base: Pick<EvaluatorResult, 'name' | 'type' | 'weight'>,
  ctx: CaseContext,
  judge: Judge,
  template: PromptTemplate | null,
  extraVars: Record<string, string>,
): Promise<EvaluatorResult> {
  const a = await judge.judge({
    prompt: template ? templatePrompt(ctx, template.template, extraVars) : freeformPrompt(ctx),
    schemaName: 'score_verdict',
    wireSchema: freeformWireSchema,
    validate: validateFreeform,
  });
  // Validated in 0..1: a score outside it was re-asked, never clamped (CONTRACTS §3).
  const score = a.value.score;
  return {
    ...base,
    mode: template ? 'prompt' : 'freeform',
    score,
    verdict: verdictForScore(score),
    hits: a.value.hits ?? [],
    misses: a.value.misses ?? [],
    reasoning: a.value.reasoning ?? null,
    gating_violations: [],
    usage: a.usage,
    ...warnings(a.warnings),
  };
}

/** The evaluator result of a rubric judged item by item (checklist or score ranges). */
function rubricResult(
  base: Pick<EvaluatorResult, 'name' | 'type' | 'weight'>,
  mode: 'checklist' | 'score_range',
  s: ScoredChecks,
  a: JudgeAnswer<{ overall_reasoning?: string | null }>,
): EvaluatorResult {
  return {
    ...base,
    mode,
    score: s.score,
    verdict: s.verdict,
    checks: s.checks,
    gating_violations: s.gating_violations,
    reasoning: a.value.overall_reasoning ?? null,
    usage: a.usage,
    ...warnings(a.warnings),
  };
}

function warnings(list: string[]): Pick<EvaluatorResult, 'warnings'> {
  return list.length > 0 ? { warnings: list } : {};
}
