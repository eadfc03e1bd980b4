import { addUsage, type CaseResult, emptyUsage, type SuiteResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { type Redactor } from '../exec/redact.js';
import {
  beforeComparison,
  type CompareOutcome,
  foldComparison,
  maxScoreAggregate,
  maxScoreOutcomes,
  selectBestOutcomes,
  undecided,
} from '../evaluators/compare-outputs.js';
import { type Judge, JudgeError } from '../judge/judge.js';
import { selectBestRequest } from '../judge/select-best.js';
import { type CompareConfig } from '../suite/types.js';
import { type PlannedCase } from './plan.js';

/**
 * The step after every case is graded (execute): promptfoo's `select-best` and `max-score`
 * decided across each test's sibling cases (its prompts × providers), and folded into each
 * sibling's verdict and score (src/evaluators/compare-outputs.ts). One judge call per
 * `select-best` test, through the run's judge (fence, cache, retry, spend). A sibling that did
 * not finish, was skipped or has no answer leaves the comparison undecided: `error`, never a pass.
 */

interface Group {
  suiteIndex: number;
  compare: CompareConfig;
  /** Own evaluators and the test's threshold, per sibling id: promptfoo's score before comparing. */
  own: Map<string, { evaluators: number; threshold: number | null }>;
}

/** The tests to compare: one group per test, keyed by its suite and its siblings. */
function groupsOf(cases: readonly PlannedCase[]): Group[] {
  const groups = new Map<string, Group>();
  for (const p of cases) {
    const compare = p.evalCase.compare;
    if (!compare) continue;
    const key = `${p.suiteIndex}\0${compare.cases.join('\0')}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { suiteIndex: p.suiteIndex, compare, own: new Map() }));
    const scoring = p.evalCase.scoring;
    g.own.set(p.evalCase.id, {
      evaluators: p.evalCase.evaluators.length,
      threshold: scoring?.kind === 'promptfoo' ? scoring.threshold : null,
    });
  }
  return [...groups.values()];
}

/** Why a sibling cannot take part, or null when it can. */
function missing(id: string, c: CaseResult | undefined): string | null {
  if (!c) return `${id} did not finish`;
  if (c.verdict === 'skipped') return `${id} was skipped`;
  if (c.answer === null) return `${id} has no answer`;
  return null;
}

async function selectBest(
  criterion: string,
  siblings: readonly (CaseResult | undefined)[],
  ids: readonly string[],
  judge: Judge | null,
): Promise<{ outcomes: CompareOutcome[]; usage: Usage | null }> {
  const n = ids.length;
  const gap = ids.map((id, i) => missing(id, siblings[i])).find((m) => m !== null);
  if (gap) return { outcomes: undecided(n, `select-best not decided: ${gap}`), usage: null };
  if (!judge)
    return { outcomes: undecided(n, 'select-best not decided: no judge is configured'), usage: null };
  try {
    const a = await judge.judge(
      selectBestRequest(
        criterion,
        siblings.map((c) => c!.answer!),
      ),
    );
    return { outcomes: selectBestOutcomes(a.value.best, ids, criterion), usage: a.usage };
  } catch (err) {
    const usage = err instanceof JudgeError ? err.usage : null;
    return { outcomes: undecided(n, `select-best not decided: ${(err as Error).message}`), usage };
  }
}

function maxScore(
  config: NonNullable<CompareConfig['maxScore']>,
  siblings: readonly (CaseResult | undefined)[],
  ids: readonly string[],
): CompareOutcome[] {
  const aggregates: number[] = [];
  for (const [i, id] of ids.entries()) {
    const c = siblings[i];
    const gap = missing(id, c);
    if (gap) return undecided(ids.length, `max-score not decided: ${gap}`);
    const a = maxScoreAggregate(config, c!.evaluators);
    if (typeof a === 'string') return undecided(ids.length, `max-score not decided: ${id}: ${a}`);
    aggregates.push(a);
  }
  return maxScoreOutcomes(aggregates, config.threshold, ids);
}

/** One test's comparisons, select-best first (as promptfoo runs them), folded into its siblings. */
async function compareGroup(g: Group, suite: SuiteResult, judge: Judge | null, redactor: Redactor) {
  const ids = g.compare.cases;
  const at = ids.map((id) => suite.cases.findIndex((c) => c.id === id));
  const siblings = at.map((k) => (k >= 0 ? suite.cases[k] : undefined));
  const folded = siblings.map((c, i) => {
    if (!c) return c;
    const own = g.own.get(ids[i]!);
    return { ...c, ...beforeComparison(c, own?.evaluators ?? 1, own?.threshold ?? null) };
  });
  if (g.compare.selectBest) {
    const { criterion, name } = g.compare.selectBest;
    const { outcomes, usage } = await selectBest(criterion, siblings, ids, judge);
    // The one call is counted once: on the first sibling there is.
    const first = folded.findIndex((c) => c !== undefined);
    folded.forEach((c, i) => {
      if (!c) return;
      const once = i === first ? usage : null;
      const next = foldComparison(c, name, outcomes[i]!, once);
      if (once) next.usage = addUsage(next.usage ? { ...next.usage } : emptyUsage(), once);
      folded[i] = next;
    });
  }
  if (g.compare.maxScore) {
    const outcomes = maxScore(g.compare.maxScore, siblings, ids);
    const name = g.compare.maxScore.name;
    folded.forEach((c, i) => {
      if (c) folded[i] = foldComparison(c, name, outcomes[i]!, null);
    });
  }
  folded.forEach((c, i) => {
    if (c) suite.cases[at[i]!] = redactor.redactDeep(c);
  });
}

/**
 * Every test's comparisons, in place in `suites` (the executed results, plan order kept). Tests
 * are compared concurrently: the judge's limiter bounds the calls in flight.
 */
export async function compareSiblings(
  cases: readonly PlannedCase[],
  suites: SuiteResult[],
  judge: Judge | null,
  redactor: Redactor,
): Promise<void> {
  await Promise.all(
    groupsOf(cases).map((g) => {
      const suite = suites[g.suiteIndex];
      return suite ? compareGroup(g, suite, judge, redactor) : Promise.resolve();
    }),
  );
}
