import { type Judge } from '../judge/judge.js';
import { type CaseContext } from '../judge/prompts.js';
import { rubricScorePrompt, rubricScoreWireSchema, validateRubricScore } from '../judge/rubric-score.js';
import { lowerMedian, majority } from '../judge/sampling.js';
import { type EvaluatorResult } from '../core/results.js';
import { EPSILON } from '../core/epsilon.js';
import { type RubricScore } from '../suite/types.js';
import { combineUsage } from './combine-samples.js';
import { judgeErrorResult } from './llm-judge.js';
import { type SampleSlot } from './sample-book.js';

/**
 * An `llm-rubric` scored as promptfoo and AgentV 5 score it: the assertion's score is the judge's
 * score; it passes when the judge says it passes and, with a `threshold` (else `min_score`), when
 * the score reaches it. With judge samples: the lower median score, pass by majority.
 */
export async function runRubricScore(
  config: { name: string; weight: number; rubricScore: RubricScore },
  ctx: CaseContext,
  judge: Judge,
  slot: SampleSlot | null,
): Promise<EvaluatorResult> {
  const base = { name: config.name, type: 'llm_judge' as const, weight: config.weight };
  const build = () => ({
    prompt: rubricScorePrompt(ctx, config.rubricScore.rubric, config.rubricScore.prompt),
    schemaName: 'rubric_score',
    wireSchema: rubricScoreWireSchema,
    validate: validateRubricScore,
  });
  try {
    const taken = slot
      ? await slot.book.take(slot.path, build, (req, i) => judge.judge(req, i))
      : { answers: [await judge.judge(build())], staleUsage: undefined };
    const answers = taken.answers;
    const scores = answers.map((a) => a.value.score);
    const score = lowerMedian(scores);
    const judgePass = majority(answers.map((a) => a.value.pass));
    const threshold = config.rubricScore.threshold;
    const pass = judgePass && (threshold === null || score + EPSILON >= threshold);
    const shown = answers[scores.indexOf(score)]!.value;
    const reason = shown.reason?.trim() || (pass ? 'grading passed' : 'grading failed');
    const why =
      !pass && judgePass && threshold !== null ? `score ${score} below threshold ${threshold}` : null;
    const result: EvaluatorResult = {
      ...base,
      mode: 'rubric',
      score,
      verdict: pass ? 'pass' : 'fail',
      hits: pass ? [config.rubricScore.rubric] : [],
      misses: pass ? [] : [why ? `${config.rubricScore.rubric} (${why})` : config.rubricScore.rubric],
      reasoning: reason,
      gating_violations: [],
      usage: combineUsage(answers, taken.staleUsage),
    };
    if (threshold !== null) result.threshold = threshold;
    const warnings = [...new Set(answers.flatMap((a) => a.warnings))];
    if (warnings.length > 0) result.warnings = warnings;
    if (slot) {
      result.samples = answers.length;
      result.sample_scores = scores;
    }
    return result;
  } catch (err) {
    return judgeErrorResult(base, err);
  }
}
