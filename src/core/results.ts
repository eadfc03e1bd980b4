/** The results model: what a run produces, in the shape of the results file (README "Results file"). */

import { type CalibrationResults } from './calibration-results.js';
import { type Usage } from './usage.js';

export type Verdict = 'pass' | 'borderline' | 'fail';
/** `skipped`: never started (the spend cap was reached, or no judge credential on a fork); never a pass. */
export type CaseVerdict = Verdict | 'error' | 'skipped';
/** Why a case was not started. */
export type SkipReason = 'budget' | 'no-judge-credential';
/** A case's verdict: with repeats, `inconclusive` when its answers cannot decide it (README "Repeats"). */
export type CaseOutcome = CaseVerdict | 'inconclusive';
type EvaluatorType =
  | 'llm_judge'
  | 'code_judge'
  | 'composite'
  | 'field_accuracy'
  | 'latency'
  | 'cost'
  | 'token_usage'
  | 'tool_trajectory'
  | 'execution_metrics'
  | 'text_assertion'
  | 'code_assertion'
  | 'similarity'
  | 'model_graded'
  | 'comparison'
  | 'tool_call';

export interface CheckResult {
  id: string;
  /** What the check asks for (the rubric item's outcome), so a reason can name it. */
  text?: string;
  /** Checklist items. */
  satisfied?: boolean;
  /** Score-range criteria: the judge's integer 0..10. */
  score?: number;
  weight: number;
  required: boolean;
  required_min_score?: number | null;
  reasoning: string | null;
  /** Judge samples: `2/3` satisfied/samples for a checklist item. */
  votes?: string;
  /** Judge samples: every sample's score of a range criterion, in sample order. */
  sample_scores?: number[];
  /** The samples disagreed on this check, and it decides the case verdict. */
  unstable?: true;
  /** Judge calibration: this check does not gate (its judge agrees with people below the floor); why. */
  advisory?: string;
}

export interface EvaluatorResult {
  name: string;
  type: EvaluatorType;
  weight: number;
  score: number;
  verdict: CaseVerdict;
  /** `rubric`: an AgentV 5 / promptfoo `llm-rubric` scored 0..1 with the judge's pass. */
  mode?: 'checklist' | 'score_range' | 'freeform' | 'prompt' | 'aggregate' | 'rubric';
  /** The pass bar an assertion set for itself (`llm-rubric` / `assert-set` `threshold`). */
  threshold?: number;
  checks?: CheckResult[];
  hits?: string[];
  misses?: string[];
  reasoning?: string | null;
  gating_violations: string[];
  error?: string;
  /** Things the judge got slightly wrong that were tolerated (an unknown id dropped). */
  warnings?: string[];
  children?: EvaluatorResult[];
  usage?: Usage;
  /** Judge samples combined into this result (absent with `judge-samples: 1`). */
  samples?: number;
  /** Judge samples of a free-form, template or aggregator score, in sample order. */
  sample_scores?: number[];
  /** The samples disagreed on this evaluator's score or one of its checks, and that decides the case verdict. */
  unstable?: true;
  /** AgentV 5 `negate: true`: the score shown is 1 - the check's own score. */
  negated?: true;
  /**
   * Judge calibration: every check of this evaluator (every part of a composite) is advisory, so
   * it holds no evidence that gates: it takes no part in the score or verdict above it; why.
   */
  advisory?: string;
  /** AgentV 5 `required`: this evaluator had to reach `min_score` (else the case threshold). */
  required?: true;
  /** promptfoo transforms: the output this evaluator graded (the case's `answer` is the original). */
  transformed_output?: string;
  /** A code judge's own `details` object, as its script printed it (AgentV). */
  details?: Record<string, unknown>;
}

export interface CaseResult {
  id: string;
  /** What the case is shown as, when its id is not its name (a promptfoo test's `description`). */
  label?: string;
  /** What decided the grade, hashed: equal hashes graded the same definition. */
  definition_hash?: string;
  /** Line of the case in its suite file (for annotations), or in `file` when that is set. */
  line?: number;
  /** The file holding the case when it is not its suite file (a tests file the suite names: CSV, JSONL, YAML). */
  file?: string;
  verdict: CaseOutcome;
  score: number;
  gating_violations: string[];
  evaluators: EvaluatorResult[];
  target: string | null;
  answer: string | null;
  /** Set when the answer was cut before it reached the judges (longer than what the judges are shown). */
  answer_cut?: AnswerCut;
  error?: string;
  /** Set with verdict `skipped`: why the case was never started. */
  skipped?: SkipReason;
  duration_ms: number;
  usage?: Usage;
  /** Judge samples disagreed on a check that decides this case's verdict. */
  unstable?: true;
  /**
   * Judge calibration: only advisory checks judged this case (`borderline`, a person should
   * look): it is left out of pass rates and baseline changes, as it holds no evidence either way.
   */
  advisory_only?: true;
  /** This case against the base branch's results; null when the run has no baseline. */
  baseline?: CaseBaseline | null;
  /** The trusted stage: who produced the answer, the pull request's run (`record`) or the judge stage. */
  answered_by?: 'record' | 'judge';
  /** Repeats: how many answers the target gave for this case (absent with one answer). */
  repeats?: number;
  /** Repeats: passing answers / answers, with the exact bounds the verdict was decided on. */
  pass_rate?: number;
  pass_rate_low?: number;
  pass_rate_high?: number;
  /** Repeats: every answer with its own verdict and score, in the order asked. */
  answers?: RepeatAnswer[];
  /** The case's `cluster` (suite key; promptfoo `metadata.cluster`), when its suite sets one. */
  cluster?: string;
}

/** One of a repeated case's answers, judged on its own (judge samples apply to each). */
export interface RepeatAnswer {
  /** 1-based: the target and its cache see which repeat they answer. */
  repeat: number;
  verdict: CaseVerdict;
  score: number;
  gating_violations: string[];
  evaluators: EvaluatorResult[];
  answer: string | null;
  answer_cut?: AnswerCut;
  unstable?: true;
  error?: string;
  duration_ms?: number;
  usage?: Usage;
}

/** What a case did relative to the baseline, in order of precedence: the first that applies is the change. */
export const CHANGES = ['new', 'redefined', 'broken', 'fixed', 'regressed', 'improved', 'same'] as const;
export type Change = (typeof CHANGES)[number];

/** The case in the baseline (null verdict and score for a `new` case) and the change. */
export interface CaseBaseline {
  verdict: CaseOutcome | null;
  score: number | null;
  change: Change;
  /** Repeats on either side: the baseline's pass rate and answers (the change is decided on the rates). */
  pass_rate?: number | null;
  passed?: number | null;
  repeats?: number | null;
  /** The base's answer where it differs from this run's, cut (baseline/compare.ts; the HTML report shows it). */
  answer?: string;
}

export interface RunBaseline {
  source: 'artifact' | 'file';
  /** The base commit the baseline was made on, when known. */
  commit: string | null;
  run_id: number | null;
  /** The base workflow run's page, when known (the comment links the short sha to it). */
  run_url: string | null;
  artifact_id: number | null;
  created_at: string | null;
  /** The file the baseline was read from (a path, or the name inside the artifact). */
  file: string | null;
  margin: number;
  changes: Record<Change | 'removed', number>;
  /** Cases of the baseline that this run no longer has, as `suite#id`. */
  removed: string[];
  /** Under `fail-on: regression`: whether the check fails, and on what (the comment says so). */
  check?: { fail_on: 'regression'; fails: boolean; reasons: string[] };
  /** Said once for the whole comparison (the base's hashes cover less: every case is redefined). */
  notice?: string;
  /** The baseline is a file inside the checkout: the pull request's own, not the base's results. */
  in_checkout?: boolean;
}

export interface AnswerCut {
  /** Size of the answer as the target gave it (a capped output file or stdout: at least this). */
  original_chars: number;
  kept_chars: number;
  /** The target's output messages were too large or too deep to pass on: the text alone was judged. */
  output_messages_dropped?: boolean;
}

export interface SuiteResult {
  path: string;
  description: string | null;
  cases: CaseResult[];
  /** The suite's own `min_pass_rate`, when it sets one. */
  min_pass_rate?: number;
}

export interface GateResult {
  command: string;
  verdict: 'pass' | 'fail';
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  /** Head and tail of the combined output, secrets redacted. */
  output: string;
  line?: number;
}

export interface CriterionResult {
  id: string;
  kind: 'must' | 'nice';
  text: string;
  /** null when the judge did not run (it errored). */
  satisfied: boolean | null;
  reasoning: string | null;
}

export interface CheckerCounts {
  gates_passed: number;
  gates_total: number;
  must_passed: number;
  must_total: number;
  nice_passed: number;
  nice_total: number;
}

export interface HistoryEntry {
  iteration: number;
  commit: string | null;
  verdict: Verdict;
  score: number;
  counts: string | null;
  feedback: string | null;
  rubric_hash: string | null;
  /** The markdown rubric's own verdict that run (what the checker reads as prior iterations). */
  rubric_verdict?: 'accept' | 'retry' | 'terminate' | null;
  at: string;
}

export interface CheckerResult {
  path: string;
  title: string | null;
  hash: string;
  verdict: 'pass' | 'fail';
  score: number;
  gates: GateResult[];
  checks: CriterionResult[];
  judge_verdict: 'accept' | 'retry' | 'terminate' | null;
  feedback: string | null;
  counts: CheckerCounts;
  error?: string;
  usage?: Usage;
}

export interface RunCounts {
  pass: number;
  borderline: number;
  fail: number;
  error: number;
  /** Cases never started (`skipped`); present only when there are some. */
  skipped?: number;
  /** Repeats: cases whose answers could not decide them (present when the run repeats). */
  inconclusive?: number;
}

/** One pass-rate gate (`min-pass-rate`, `min_pass_rate`): the share of cases that passed against the minimum. */
export interface PassRate {
  /** The suite's path; null for the whole run. */
  suite: string | null;
  passed: number;
  total: number;
  /** passed / total (0 when nothing ran). */
  rate: number;
  min: number;
  met: boolean;
}

export interface RunResults {
  version: 1;
  verdict: Verdict;
  score: number;
  counts: RunCounts;
  suites: SuiteResult[];
  rubric: CheckerResult | null;
  usage: Usage;
  /** True when the run was cancelled or stopped early: some cases are missing. */
  partial: boolean;
  /** Problems that stopped the run (validation, configuration), formatted. */
  errors: string[];
  warnings: string[];
  history: HistoryEntry[];
  judge: { model: string; base_url: string } | null;
  /** How the judge endpoint behaved: retries, repairs of invalid answers, 429s, timeouts. */
  judge_stats?: {
    http_calls: number;
    retries: number;
    repairs: number;
    rate_limited: number;
    timeouts: number;
    peak_in_flight: number;
  };
  started_at: string;
  duration_ms: number;
  /** A shard's part of a plan; never in a merged or unsharded run. */
  shard?: { index: number; total: number; plan_hash: string; planned: number };
  /** A merged run: each shard's file, duration and calls. */
  shards?: ShardSummary[];
  /** The comparison with the base branch's results; null without one. */
  baseline?: RunBaseline | null;
  /** Why there is no baseline, in one line, when one was asked for (auto or a file). */
  baseline_note?: string | null;
  /** The pass-rate gates, overall first, when `min-pass-rate` or a suite's `min_pass_rate` is set. */
  pass_rates?: PassRate[];
  /** The spend cap (`budget-usd`): the cap, what was spent (estimated) and how many cases it skipped. */
  budget?: { usd: number; spent_usd: number; skipped: number };
  /** Judge calibration against the labels file (`calibration` input); absent without one. */
  calibration?: CalibrationResults | null;
  /** `stage: judge`: what was judged, from which run, and what the pull request's run reported. */
  trusted?: TrustedInfo;
  /** What the cases' `definition_hash` covers (see DEFINITION_VERSION); absent in older files. */
  definition_version?: number;
  /** The pull request's effect against the baseline (docs/effect.md); null without a baseline. */
  effect?: RunEffect | null;
}

// --- The pull request's effect (docs/effect.md) ---

/** One metric's paired effect, head − base, over the cases judged on both sides. */
export interface EffectRow {
  metric: 'score' | 'pass';
  n: number;
  clusters: number;
  base_mean: number;
  head_mean: number;
  delta: number;
  delta_low: number;
  delta_high: number;
  /** The smallest true drop that reads `regressed` in 80% of runs; null when none is detectable. */
  mde: number | null;
  margin: number;
  verdict: 'improved' | 'non-inferior' | 'regressed' | 'inconclusive';
  method: string;
}

export interface RunEffect {
  margin: number;
  /** Cases judged on both sides, of the same definition (fewer than 10: no rows). */
  paired: number;
  /** Score, then pass; empty when fewer than 10 cases pair. */
  overall: EffectRow[];
  /** Per suite with at least 10 paired cases, in the run's order. */
  suites: { path: string; rows: EffectRow[] }[];
}

/** The judge stage's account of a recorded run (README "The trusted stage"). */
export interface TrustedInfo {
  stage: 'judge';
  /** The pull request's record run, as GitHub's event names it. */
  record_run: { id: number; url: string | null; conclusion: string | null } | null;
  pr_number: number | null;
  head_sha: string | null;
  /** Recorded answers for cases the base branch does not have, as `suite#id`: judged after merge. */
  new_in_pr: string[];
  /** Base cases the pull request's run recorded no answer for (each is an `error` case). */
  unanswered: string[];
  /** Recorded gate results for commands the base rubric does not have (shown, never counted). */
  extra_gates: string[];
  /** What the pull request changes among the judged files (suites, the rubric), from the API. */
  changed_files?: string[];
  /** How many shard jobs of the record run recorded the answers (absent for one job). */
  record_shards?: number;
}

export interface ShardSummary {
  index: number;
  file: string;
  cases: number;
  started_at: string;
  duration_ms: number;
  judge_calls: number;
  http_calls: number;
}

/** Cases by verdict; `skipped` only when some case was skipped (older readers know four verdicts). */
/** `skipped` and `inconclusive` are counted only when there are some. */
export function countCases(verdicts: Iterable<CaseOutcome>): RunCounts {
  const counts: RunCounts = { pass: 0, borderline: 0, fail: 0, error: 0 };
  for (const v of verdicts) {
    if (v === 'skipped' || v === 'inconclusive') counts[v] = (counts[v] ?? 0) + 1;
    else counts[v]++;
  }
  return counts;
}

export function emptyUsage(): Usage {
  return { judge_calls: 0, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null };
}

export function addUsage(into: Usage, more: Usage | undefined): Usage {
  if (!more) return into;
  into.judge_calls += more.judge_calls;
  into.cached_calls += more.cached_calls;
  into.prompt_tokens += more.prompt_tokens;
  into.completion_tokens += more.completion_tokens;
  if (more.cost_usd !== null) into.cost_usd = (into.cost_usd ?? 0) + more.cost_usd;
  return into;
}
