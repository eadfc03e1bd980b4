import { DEFINITION_VERSION } from '../suite/definition-hash.js';
import {
  addUsage,
  countCases,
  type CaseOutcome,
  emptyUsage,
  type HistoryEntry,
  type CheckerResult,
  type RunCounts,
  type RunResults,
  type SuiteResult,
  type Verdict,
} from '../core/results.js';
import { historyCounts } from '../report/history.js';

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export interface AggregateInput {
  suites: SuiteResult[];
  rubric: CheckerResult | null;
  /** Problems that stopped the run (formatted); any makes the run fail. */
  errors: string[];
  warnings: string[];
  partial: boolean;
  judge: RunResults['judge'];
  /** Earlier runs on this pull request, oldest first. */
  history: readonly HistoryEntry[];
  commit: string | null;
  /** When the run started (ms since the epoch). */
  started: number;
  /** A shard run: which part of which plan it is. */
  shard?: RunResults['shard'];
}

/**
 * Stage 4, aggregate: case results and the rubric into the run's verdict, score, counts, usage
 * and its history entry. Pure apart from the clock; an error or a cancelled run is never a pass.
 */
export function aggregateResults(p: AggregateInput): RunResults {
  const cases = p.suites.flatMap((s) => s.cases);
  const agg = aggregateRun(cases, p.rubric);
  // Repeats add `inconclusive` to the counts; a run without them keeps its file as it was.
  if (cases.some((c) => c.repeats !== undefined)) agg.counts.inconclusive ??= 0;
  const verdict = p.errors.length > 0 || p.partial ? 'fail' : agg.verdict;
  const usage = emptyUsage();
  for (const c of cases) addUsage(usage, c.usage);
  addUsage(usage, p.rubric?.usage);
  const entry: HistoryEntry = {
    iteration: p.history.length,
    commit: p.commit,
    verdict,
    score: round4(agg.score),
    counts: historyCounts(agg.counts, p.rubric?.counts ?? null),
    feedback: p.rubric?.feedback ?? firstFailure(p.suites, p.errors),
    rubric_hash: p.rubric?.hash ?? null,
    rubric_verdict: checkerVerdict(p.rubric),
    at: new Date().toISOString(),
  };
  return {
    version: 1,
    verdict,
    score: round4(agg.score),
    counts: agg.counts,
    suites: p.suites,
    rubric: p.rubric,
    usage,
    partial: p.partial,
    errors: p.errors,
    warnings: p.warnings,
    history: [...p.history, entry],
    judge: p.judge,
    started_at: new Date(p.started).toISOString(),
    duration_ms: Date.now() - p.started,
    ...(p.shard ? { shard: p.shard } : {}),
    definition_version: DEFINITION_VERSION,
  };
}

/** The checker's own verdict, as the checker reads prior iterations. */
function checkerVerdict(checker: CheckerResult | null): HistoryEntry['rubric_verdict'] {
  if (!checker) return null;
  if (checker.judge_verdict === 'terminate') return 'terminate';
  return checker.verdict === 'pass' ? 'accept' : 'retry';
}

function firstFailure(suites: readonly SuiteResult[], errors: readonly string[]): string | null {
  if (errors.length > 0) return errors[0]!;
  for (const s of suites)
    for (const c of s.cases)
      if (c.verdict === 'fail' || c.verdict === 'error')
        return `${c.id}: ${c.error ?? c.gating_violations[0] ?? `score ${c.score.toFixed(2)}`}`;
  return null;
}

export interface RunAggregate {
  score: number;
  verdict: Verdict;
  counts: RunCounts;
}

/**
 * The run: score is the mean of the case scores (the markdown-rubric checker counts as one more
 * item); verdict is fail if any case failed or errored or the checker failed, else borderline if
 * any case is borderline or inconclusive, else pass. A run with nothing evaluated at all is a fail: an empty run
 * must not turn a required check green.
 */
export function aggregateRun(
  cases: readonly { score: number; verdict: CaseOutcome }[],
  checker: { score: number; verdict: 'pass' | 'fail' } | null,
): RunAggregate {
  const counts = countCases(cases.map((c) => c.verdict));
  const scores = cases.map((c) => c.score);
  if (checker) scores.push(checker.score);
  const score = scores.length === 0 ? 0 : scores.reduce((a, b) => a + b, 0) / scores.length;
  let verdict: Verdict;
  if (cases.length === 0 && !checker) verdict = 'fail';
  // A skipped case was never judged: it cannot let a run pass.
  else if (counts.fail > 0 || counts.error > 0 || counts.skipped || checker?.verdict === 'fail')
    verdict = 'fail';
  // An inconclusive case is not a clean pass; whether it fails the check is `fail-on`'s call.
  else if (counts.borderline > 0 || (counts.inconclusive ?? 0) > 0) verdict = 'borderline';
  else verdict = 'pass';
  return { score, verdict, counts };
}
