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
import { answerAsCase, combineRepeats } from '../evaluators/repeated-case.js';
import { DEFAULT_MIN_CASE_PASS_RATE, type RepeatRule } from '../core/repeat-setting.js';

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
  own: Map<string, { evaluators: number; threshold: number | null; rule: RepeatRule | null }>;
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
      rule:
        p.repeat === undefined
          ? null
          : { setting: p.repeat, minRate: p.minCasePassRate ?? DEFAULT_MIN_CASE_PASS_RATE },
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

/** One round of a test's comparisons, select-best first (as promptfoo runs them), folded into each sibling. */
async function compareRound(
  g: Group,
  round: readonly (CaseResult | undefined)[],
  judge: Judge | null,
): Promise<(CaseResult | undefined)[]> {
  const ids = g.compare.cases;
  const folded = round.map((c, i) => {
    if (!c) return c;
    const own = g.own.get(ids[i]!);
    return { ...c, ...beforeComparison(c, own?.evaluators ?? 1, own?.threshold ?? null) };
  });
  if (g.compare.selectBest) {
    const { criterion, name } = g.compare.selectBest;
    const { outcomes, usage } = await selectBest(criterion, round, ids, judge);
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
    const outcomes = maxScore(g.compare.maxScore, round, ids);
    const name = g.compare.maxScore.name;
    folded.forEach((c, i) => {
      if (c) folded[i] = foldComparison(c, name, outcomes[i]!, null);
    });
  }
  return folded;
}

/** A repeated case's answers as cases of their own (promptfoo compares repeat by repeat); else the case. */
const answersOf = (c: CaseResult): CaseResult[] =>
  c.answers && c.answers.length > 1 ? c.answers.map((a) => answerAsCase(c, a)) : [c];

/**
 * One test's comparisons. With `repeat: N` each round compares the siblings' answers of that
 * repeat, and each repeated case is combined again from its compared answers (its pass rate and
 * verdict); a sibling whose target gives one answer (a mock, recorded answers) takes part in
 * every round with it, and is graded by the first.
 */
async function compareGroup(
  g: Group,
  suite: SuiteResult,
  byId: ReadonlyMap<string, number>,
  judge: Judge | null,
  redactor: Redactor,
) {
  const at = g.compare.cases.map((id) => byId.get(id) ?? -1);
  const siblings = at.map((k) => (k >= 0 ? suite.cases[k] : undefined));
  const views = siblings.map((c) => (c ? answersOf(c) : []));
  const rounds = Math.max(1, ...views.map((v) => v.length));
  for (let r = 0; r < rounds; r++) {
    const round = views.map((v) => v[r] ?? (v.length === 1 ? v[0] : undefined));
    const folded = await compareRound(g, round, judge);
    views.forEach((v, i) => {
      if (v[r] && folded[i]) v[r] = folded[i];
    });
  }
  siblings.forEach((c, i) => {
    if (!c) return;
    const v = views[i]!;
    const rule = g.own.get(g.compare.cases[i]!)?.rule;
    const next = v.length > 1 && rule ? { ...c, ...combineRepeats(v, rule) } : v[0]!;
    suite.cases[at[i]!] = redactor.redactDeep(next);
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
  const groups = groupsOf(cases);
  if (groups.length === 0) return;
  // Each suite's cases by id, once: a suite of many compared tests finds every sibling directly.
  const byId = suites.map((s) => new Map(s.cases.map((c, k) => [c.id, k])));
  await Promise.all(
    groups.map((g) => {
      const suite = suites[g.suiteIndex];
      return suite ? compareGroup(g, suite, byId[g.suiteIndex]!, judge, redactor) : Promise.resolve();
    }),
  );
}
