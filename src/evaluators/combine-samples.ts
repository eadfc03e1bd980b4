import { type JudgeAnswer } from '../judge/judge.js';
import { type ChecklistAnswer, type FreeformAnswer, type ScoreRangeAnswer } from '../judge/schemas.js';
import { formatVotes, lowerMedian, majority } from '../judge/sampling.js';
import { addUsage, emptyUsage } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { type ScoredChecks, scoreChecklist, scoreRanges } from '../rubric/scoring.js';
import { type ChecklistItem, type RangeCriterion } from '../rubric/types.js';

/**
 * Judge samples combined into one evaluator result (README "Judge samples"): a checklist item is satisfied
 * when most samples say so (a tie is not), a range or free-form score is the lower median. The
 * reasoning shown is a sample's that agrees with the combined verdict. One sample combines into
 * exactly the result it always gave; `sampled` adds the votes.
 */
export interface CombinedChecks {
  scored: ScoredChecks;
  /** The sample whose answer agrees most with the combined one (its overall reasoning is shown). */
  representative: number;
  warnings: string[];
}

export function combineUsage(answers: readonly JudgeAnswer<unknown>[], extra?: Usage): Usage {
  return answers.reduce((u, a) => addUsage(u, a.usage), addUsage(emptyUsage(), extra));
}

function allWarnings(answers: readonly JudgeAnswer<unknown>[]): string[] {
  return answers.length === 1 ? answers[0]!.warnings : [...new Set(answers.flatMap((a) => a.warnings))];
}

/**
 * The one answer of an unsampled call, its checks by id: one sample is its own majority and its
 * own median, so its checks are the verdicts as they stand (the general path gives the same
 * result, building votes, medians and agreement counts for every item of every case).
 */
function single<C extends { id: string }>(
  answers: readonly JudgeAnswer<{ checks: C[] }>[],
  sampled: boolean,
): { checks: Map<string, C>; warnings: string[] } | null {
  const only = answers.length === 1 && !sampled ? answers[0]! : null;
  return only && { checks: new Map(only.value.checks.map((c) => [c.id, c])), warnings: only.warnings };
}

/** The index of the sample agreeing with `agrees` on the most items (the first on a tie). */
function mostAgreeing(count: number, agrees: (sample: number) => number): number {
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < count; i++) {
    const s = agrees(i);
    if (s > bestScore) [best, bestScore] = [i, s];
  }
  return best;
}

export function combineChecklist(
  items: readonly ChecklistItem[],
  answers: readonly JudgeAnswer<ChecklistAnswer>[],
  sampled: boolean,
): CombinedChecks {
  const only = single(answers, sampled);
  if (only) return { scored: scoreChecklist(items, only.checks), representative: 0, warnings: only.warnings };
  const byId = answers.map((a) => new Map(a.value.checks.map((c) => [c.id, c])));
  const combined = new Map<string, { satisfied: boolean; reasoning: string | null; votes: boolean[] }>();
  for (const item of items) {
    const votes = byId.map((m) => m.get(item.id)?.satisfied ?? false);
    const satisfied = majority(votes);
    const agreeing = byId.find((m) => (m.get(item.id)?.satisfied ?? false) === satisfied);
    combined.set(item.id, { satisfied, reasoning: agreeing?.get(item.id)?.reasoning ?? null, votes });
  }
  const scored = scoreChecklist(items, combined);
  if (sampled)
    scored.checks = scored.checks.map((c) => ({ ...c, votes: formatVotes(combined.get(c.id)!.votes) }));
  const representative = mostAgreeing(
    answers.length,
    (i) =>
      items.filter((it) => (byId[i]!.get(it.id)?.satisfied ?? false) === combined.get(it.id)!.satisfied)
        .length,
  );
  return { scored, representative, warnings: allWarnings(answers) };
}

export function combineScoreRanges(
  items: readonly RangeCriterion[],
  answers: readonly JudgeAnswer<ScoreRangeAnswer>[],
  sampled: boolean,
): CombinedChecks {
  const only = single(answers, sampled);
  if (only) return { scored: scoreRanges(items, only.checks), representative: 0, warnings: only.warnings };
  const byId = answers.map((a) => new Map(a.value.checks.map((c) => [c.id, c])));
  const combined = new Map<string, { score: number; reasoning: string | null; scores: number[] }>();
  for (const item of items) {
    const scores = byId.map((m) => m.get(item.id)?.score ?? 0);
    const score = lowerMedian(scores);
    const agreeing = byId.find((m) => m.get(item.id)?.score === score);
    combined.set(item.id, { score, reasoning: agreeing?.get(item.id)?.reasoning ?? null, scores });
  }
  const scored = scoreRanges(items, combined);
  if (sampled)
    scored.checks = scored.checks.map((c) => ({ ...c, sample_scores: combined.get(c.id)!.scores }));
  const representative = mostAgreeing(
    answers.length,
    (i) => items.filter((it) => byId[i]!.get(it.id)?.score === combined.get(it.id)!.score).length,
  );
  return { scored, representative, warnings: allWarnings(answers) };
}

/** A free-form or template score: each sample as given (validated in 0..1, never clamped), then the lower median. */
export function combineFreeform(answers: readonly JudgeAnswer<FreeformAnswer>[]): {
  score: number;
  scores: number[];
  representative: FreeformAnswer;
  warnings: string[];
} {
  const scores = answers.map((a) => a.value.score);
  const score = lowerMedian(scores);
  const representative = answers[scores.indexOf(score)]!.value;
  return { score, scores, representative, warnings: allWarnings(answers) };
}
