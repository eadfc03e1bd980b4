import { type JudgeAnswer } from '../judge/judge.js';
import { type ChecklistAnswer, type StatedVerdict } from '../judge/schemas.js';
import { lowerMedian, majority } from '../judge/sampling.js';
import { type Verdict } from '../core/results.js';
import { type ScoredChecks, scoreChecklist } from '../rubric/scoring.js';
import { type ChecklistItem } from '../rubric/types.js';

/** A checklist answer read the AgentV 5 way (judge/schemas.ts validateStatedChecklist). */
export type StatedChecklistAnswer = ChecklistAnswer & { stated?: StatedVerdict | null };

/**
 * An AgentV 5 checklist's score and verdict when its judge stated its own (AgentV 5's
 * llm-grader.ts, normalizePromptfooGradingResult): the stated `score`, else the share of checks
 * satisfied, each counting once; the stated `pass`, else every check satisfied. With judge
 * samples, each sample is read so (a rubric-shaped one by its checks), then the lower median
 * score and the majority pass, as an `llm-rubric` score is combined. A required item not
 * satisfied still fails it (stricter than AgentV, as everywhere here). Null when no answer
 * stated anything: its checks decide, as before.
 */
export function statedChecklistScore(
  items: readonly ChecklistItem[],
  answers: readonly JudgeAnswer<StatedChecklistAnswer>[],
  scored: ScoredChecks,
): { score: number; verdict: Verdict; sampleScores: number[] } | null {
  if (!answers.some((a) => a.value.stated)) return null;
  const samples = answers.map(({ value }) => {
    const stated = value.stated;
    if (!stated) {
      const own = scoreChecklist(items, new Map(value.checks.map((c) => [c.id, c])));
      return { score: own.score, pass: own.verdict === 'pass' };
    }
    const met = value.checks.filter((c) => c.satisfied).length;
    const pass = stated.pass ?? met === value.checks.length;
    // No checks: AgentV scores the pass itself (a checklist always asks at least one item).
    const share = value.checks.length > 0 ? met / value.checks.length : Number(pass);
    return { score: stated.score ?? share, pass };
  });
  const sampleScores = samples.map((s) => s.score);
  const pass = majority(samples.map((s) => s.pass));
  return {
    score: lowerMedian(sampleScores),
    verdict: scored.gating_violations.length === 0 && pass ? 'pass' : 'fail',
    sampleScores,
  };
}
