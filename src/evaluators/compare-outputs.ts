import { type CaseResult, type EvaluatorResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { EPSILON } from '../core/epsilon.js';
import { type MaxScoreConfig } from '../suite/types.js';

/**
 * promptfoo's comparison assertions as rules (`select-best`, `max-score`): which of a test's
 * sibling cases wins, and how that outcome folds into each sibling's verdict and score. Pure: the
 * pipeline step (src/pipeline/compare-siblings.ts) gathers the siblings and asks the judge.
 *
 * promptfoo 0.121's rules, followed here: the comparisons take no part in the test's weighted
 * score; the winner keeps its verdict and score; every other sibling fails and scores 0 (whatever
 * its other assertions gave, and whatever the test's `threshold`); a test whose only assertions
 * compare scores 0 before the comparison (no assertion weighs), so its winner passes with 0.
 */

/** One sibling's side of a comparison. `error`: it could not be decided (never a pass). */
export interface CompareOutcome {
  verdict: 'pass' | 'fail' | 'error';
  score: number;
  reason: string;
}

const fixed3 = (x: number) => x.toFixed(3);

/** The same outcome for every sibling: the comparison could not be made, and says why. */
export const undecided = (count: number, reason: string): CompareOutcome[] =>
  Array.from({ length: count }, () => ({ verdict: 'error', score: 0, reason }));

/**
 * select-best: the judge's pick passes with score 1, the others fail with 0. An index outside
 * the siblings is an error for every one of them, never a pass (the judge client re-asks first).
 */
export function selectBestOutcomes(
  chosen: number,
  siblings: readonly string[],
  criterion: string,
): CompareOutcome[] {
  const count = siblings.length;
  if (!Number.isInteger(chosen) || chosen < 0 || chosen >= count) {
    const reason = `select-best: the judge picked answer ${chosen}, and there are ${count} (0 to ${count - 1})`;
    return undecided(count, reason);
  }
  return siblings.map((_, i) =>
    i === chosen
      ? { verdict: 'pass', score: 1, reason: `picked as the answer that best meets: ${criterion}` }
      : {
          verdict: 'fail',
          score: 0,
          reason: `the judge picked ${siblings[chosen]} over this answer for: ${criterion}`,
        },
  );
}

/**
 * The result at a part's position (a top-level evaluator, or an assert-set's child): by index, as
 * results follow the evaluators' order; a result there of another name is none (never another's).
 */
function resultAt(
  results: readonly EvaluatorResult[],
  part: MaxScoreConfig['parts'][number],
): EvaluatorResult | undefined {
  let list = results;
  let found: EvaluatorResult | undefined;
  for (const [depth, i] of part.at.entries()) {
    found = list[i];
    if (!found || found.name !== part.path[depth]) return undefined;
    list = found.children ?? [];
  }
  return found;
}

/**
 * max-score's aggregate of one sibling: its other assertions' scores, each weighted by
 * `weights[type]` (1 unless named; the assertion's own `weight` plays no part, as in promptfoo),
 * summed, or averaged over the weights (0 when they sum to 0). A string when a part has no score.
 */
export function maxScoreAggregate(
  config: MaxScoreConfig,
  results: readonly EvaluatorResult[],
): number | string {
  let total = 0;
  let weights = 0;
  for (const part of config.parts) {
    const r = resultAt(results, part);
    const name = part.path.join(' › ');
    if (!r) return `${name} has no result`;
    if (r.verdict === 'error') return `${name} errored`;
    total += r.score * part.weight;
    weights += part.weight;
  }
  if (config.method === 'sum') return total;
  return weights > 0 ? total / weights : 0;
}

/**
 * max-score: the first sibling (in promptfoo's order) with the highest aggregate passes, if that
 * reaches `threshold`; the others fail. A tie goes to the first; below the threshold none passes.
 */
export function maxScoreOutcomes(
  aggregates: readonly number[],
  threshold: number | null,
  siblings: readonly string[],
): CompareOutcome[] {
  let best = -Infinity;
  let winner = 0;
  aggregates.forEach((a, i) => {
    if (a > best) {
      best = a;
      winner = i;
    }
  });
  const meets = threshold === null || best + EPSILON >= threshold;
  return aggregates.map((a, i) => {
    if (i === winner && meets)
      return { verdict: 'pass', score: 1, reason: `the highest score of the test's answers (${fixed3(a)})` };
    const reason =
      a === best && !meets
        ? `the highest score (${fixed3(a)}), below max-score's threshold ${threshold}`
        : `scored ${fixed3(a)}; ${siblings[winner]} scored ${fixed3(best)}`;
    return { verdict: 'fail', score: 0, reason };
  });
}

/**
 * The case's verdict and score before any comparison, as promptfoo has them: a test whose only
 * assertions compare weighs nothing, so it scores 0 and passes (or meets its threshold with 0).
 */
export function beforeComparison(
  c: CaseResult,
  ownEvaluators: number,
  threshold: number | null,
): Pick<CaseResult, 'verdict' | 'score'> {
  if (ownEvaluators > 0 || c.verdict === 'error' || c.verdict === 'skipped') return c;
  return { verdict: threshold === null || threshold <= EPSILON ? 'pass' : 'fail', score: 0 };
}

/**
 * One comparison folded into a sibling, as promptfoo merges it: shown as its own evaluator
 * (weight 0: it is not in the weighted score); a failing one fails the case and sets its score to
 * 0; a passing one leaves both; one that could not be decided makes the case an `error`. A case
 * already `error` or `skipped` stays so.
 */
export function foldComparison(
  c: CaseResult,
  name: string,
  outcome: CompareOutcome,
  usage: Usage | null,
): CaseResult {
  const shown: EvaluatorResult = {
    name,
    type: 'comparison',
    weight: 0,
    score: outcome.score,
    verdict: outcome.verdict,
    reasoning: outcome.reason,
    gating_violations: [],
    ...(outcome.verdict === 'error' ? { error: outcome.reason } : {}),
    ...(outcome.verdict === 'fail' ? { misses: [outcome.reason] } : {}),
    ...(usage ? { usage } : {}),
  };
  const folded: CaseResult = { ...c, evaluators: [...c.evaluators, shown] };
  if (c.verdict === 'error' || c.verdict === 'skipped') return folded;
  if (outcome.verdict === 'error') return { ...folded, verdict: 'error' };
  if (outcome.verdict === 'fail') return { ...folded, verdict: 'fail', score: 0 };
  return folded;
}
