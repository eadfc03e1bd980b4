import { type SamplesSetting } from '../judge/sampling.js';
import { type EvaluatorResult } from '../core/results.js';
import { type CaseScoring, type EvaluatorConfig } from '../suite/types.js';
import { SampleBook } from './sample-book.js';
import { autoWanted, checklistVoteSets, markUnstable, mostDoubtful } from './sample-doubt.js';
import { type ItemVotes, type NoiseModel } from './verdict-posterior.js';

/** Far above what 7 samples per evaluator need; a guard, not a limit anyone should meet. */
const MAX_ROUNDS = 64;
/**
 * Where the run tops up, a checklist judge takes at most this many samples by its case's own
 * doubt: one confirming sample, the rest by the run's fit of its judge's noise, which sees what
 * one case cannot (a judge that slips on every item) and keeps the run within twice its first
 * calls. Measured in simulation against 3 and 7 (BENCHMARKS.md, "Judge noise").
 */
const CASE_CHECKLIST_MAX = 2;

/**
 * One case's evaluators with judge samples. A fixed count: every judged evaluator takes that many
 * samples at once. `auto`: one sample each, then, round by round, one more sample for the
 * evaluators whose checks could still change the case verdict, until none could (or each has 7;
 * a checklist judge 2 when the run offers its leftover samples).
 * Every round evaluates the case again; the book serves the samples already taken, so a round
 * costs only its new samples. Finally the checks the samples split on, where that decides the
 * verdict, are marked unstable.
 */
export async function runSampledCase(
  configs: readonly EvaluatorConfig[],
  setting: SamplesSetting,
  signal: AbortSignal | undefined,
  evaluate: (book: SampleBook) => Promise<EvaluatorResult[]>,
  /** The case's format scoring (AgentV 5's threshold), so doubt is judged by its verdict rule. */
  scoring?: CaseScoring,
  /** `auto`: where the case offers the run its leftover doubt (`pipeline/sample-top-up.ts`). */
  offer?: (topUp: SampleTopUp) => void,
): Promise<EvaluatorResult[]> {
  const book = new SampleBook(setting);
  let results = await evaluate(book);
  if (setting === 'auto') {
    const checklistMax = offer ? CASE_CHECKLIST_MAX : book.max;
    for (let round = 0; round < MAX_ROUNDS && !signal?.aborted; round++) {
      const wanted = autoWanted(configs, results, book.max, scoring, checklistMax).filter((p) =>
        book.more(p),
      );
      if (wanted.length === 0) break;
      results = await evaluate(book);
    }
    if (offer && !signal?.aborted) offer(topUpOf(configs, book, () => results, evaluate, scoring));
  }
  markUnstable(configs, results, scoring);
  return results;
}

/**
 * A case decided by `auto`, open to more samples from the run's leftover budget: how many calls
 * its samples made, its checklist votes, how likely its verdict is wrong, and one more sample of
 * its most doubtful checklist judge (the results evaluated again and marked).
 */
export interface SampleTopUp {
  /** Calls of the case's first samples (one per judged evaluator) and of those after them. */
  calls(): { first: number; extra: number };
  /** Each checklist judge's votes, for the run's fit of the judge's noise. */
  votes(): ItemVotes[][];
  /** The chance its verdict is wrong, under `model` (kept for later calls) or the last one given. */
  doubt(model?: NoiseModel): number;
  /** The most calls the next sample can make: it, and each judge aggregator above it asked again. */
  maxCost(): number;
  more(): Promise<EvaluatorResult[]>;
}

/** How many composites with an `llm_judge` aggregator hold the evaluator at `path` (`e/0/2`). */
function judgeAggregatorsAbove(configs: readonly EvaluatorConfig[], path: string): number {
  let level: readonly EvaluatorConfig[] = configs;
  let n = 0;
  for (const i of path.split('/').slice(1).map(Number)) {
    const c = level[i];
    if (!c || c.type !== 'composite') break;
    if (c.aggregator.type === 'llm_judge') n++;
    level = c.children;
  }
  return n;
}

function topUpOf(
  configs: readonly EvaluatorConfig[],
  book: SampleBook,
  current: () => EvaluatorResult[],
  evaluate: (book: SampleBook) => Promise<EvaluatorResult[]>,
  scoring?: CaseScoring,
): SampleTopUp {
  let results = current();
  let model: NoiseModel | undefined;
  let next: ReturnType<typeof mostDoubtful> | undefined;
  const ranked = () => {
    if (next === undefined) next = mostDoubtful(configs, results, book.max, scoring, model);
    return next;
  };
  return {
    calls: () => book.calls(),
    votes: () => checklistVoteSets(configs, results),
    doubt: (m) => {
      if (m && m !== model) [model, next] = [m, undefined];
      return ranked()?.doubt ?? 0;
    },
    maxCost: () => {
      const n = ranked();
      return 1 + (n ? judgeAggregatorsAbove(configs, n.path) : 0);
    },
    more: async () => {
      const n = ranked();
      if (n && book.more(n.path)) results = await evaluate(book);
      next = mostDoubtful(configs, results, book.max, scoring, model);
      markUnstable(configs, results, scoring);
      return results;
    },
  };
}
