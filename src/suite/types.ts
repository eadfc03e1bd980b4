import { type Position } from '../core/diagnostics.js';
import { type RubricSet } from '../rubric/types.js';
import { type ProviderEntry } from './agentv5/provider-catalog.js';
import { type RepeatSetting } from '../core/repeat-setting.js';

/** A file attached to a message, read once at load time. */
export interface FileAttachment {
  /** Path relative to the workspace root, with forward slashes (a GitHub URL for a remote file). */
  path: string;
  /** Local file; for a remote file, its cached copy once fetched (empty until then). */
  absPath: string;
  text: string;
  /** A file given as a GitHub URL: fetched through the API before the run (see suite/remote-files.ts). */
  remote?: GitHubFileRef;
  /** Instruction files (`*.instructions.md`, `*.prompt.md`, `SKILL.md`) are guidelines in AgentV's terms. */
  guideline: boolean;
}

export type ContentPart = { type: 'text'; text: string } | { type: 'file'; file: FileAttachment };

export interface Message {
  role: string;
  /** The content as text and files: what prompts and targets see. */
  parts: ContentPart[];
  /**
   * Content written as structure (an object, or `expected_output` as a list that is not
   * messages), kept as written for code judges (AgentV); `parts` holds its JSON text.
   */
  structured?: unknown;
  /** The message's `tool_calls` as written (AgentV passes them to code judges). */
  toolCalls?: unknown[];
}

/** `https://github.com/{owner}/{repo}/blob/{ref...}/{path}`; the ref may hold slashes. */
export interface GitHubFileRef {
  url: string;
  owner: string;
  repo: string;
  /** Everything after `blob/`: where the ref ends and the path begins is found by asking the API. */
  refAndPath: string;
}

export interface PromptTemplate {
  path: string;
  template: string;
}

/** Code from the suite (promptfoo `javascript` / `python` values and transforms): inline or a file. */
export interface CodeSource {
  language: 'javascript' | 'python';
  /** Inline code as written (vars rendered), else null. */
  code: string | null;
  /** A `file://` script, read at load (its text is what the definition hash covers). */
  file: { path: string; absPath: string; text: string; fn: string | null } | null;
}

/** What a transform or code assertion is told about its test (promptfoo's `context`). */
export interface CodeContext {
  vars: Record<string, unknown>;
  /** The test as written, its vars merged (promptfoo's `context.test`). */
  test: Record<string, unknown>;
  /** Where the code runs: the suite file's folder. */
  cwd: string;
}

interface EvaluatorBase {
  name: string;
  /** Weight of this evaluator in the case score (composite children: see the aggregator). */
  weight: number;
  pos: Position;
  /** AgentV 5 `negate`: the score becomes 1 - score, pass and fail swap (an error stays an error). */
  negate?: boolean;
  /** AgentV 5 `required`: scoring below `minScore` (else the case threshold) zeroes the case. */
  required?: boolean;
  minScore?: number | null;
  /**
   * promptfoo transforms, applied in order to the answer before this evaluator grades it: the
   * test's `options.transform`, then the assertion's own `transform`.
   */
  transforms?: CodeSource[];
  /** The vars and test the transforms (and code assertions) are given as `context`. */
  codeContext?: CodeContext;
  /** promptfoo: the assertion's type as written (`not-contains`), which `max-score`'s `weights` name. */
  assertionType?: string;
}

export interface LlmJudgeConfig extends EvaluatorBase {
  type: 'llm_judge';
  rubrics: RubricSet | null;
  prompt: PromptTemplate | null;
  /** A script that prints the prompt (AgentV prompt templates); used instead of `prompt`. */
  promptScript?: PromptScript | null;
  /** promptfoo / AgentV 5 `llm-rubric` with a text value: the judge's 0..1 score is the score. */
  rubricScore?: RubricScore;
  /**
   * AgentV 5 checklists: a promptfoo-shaped judge answer's own `score` and `pass` decide, not its
   * checks (judge/schemas.ts StatedVerdict). Set by the AgentV 5 loader, never in promptfoo files.
   */
  statedScore?: true;
}

export interface RubricScore {
  rubric: string;
  /** The assertion's own `threshold` (else its `min_score`): its pass needs the score to reach it. */
  threshold: number | null;
  /**
   * promptfoo's `rubricPrompt` (the assertion's, else the test's `options`): the suite's grader
   * prompt text (a chat as JSON) and the test's vars it may name. Absent: our prompt.
   */
  prompt?: { text: string; vars: Record<string, unknown> };
}

export interface PromptScript {
  /** argv; its last element resolved to an absolute path. */
  command: string[];
  cwd: string;
  /** Passed to the script as `config`. */
  config: Record<string, unknown> | null;
}

type FieldMatch = 'exact' | 'numeric_tolerance' | 'date';

export interface FieldSpec {
  path: string;
  match: FieldMatch;
  /** Default true (AgentV): a missing required field scores 0, a missing optional one is left out. */
  required: boolean;
  weight: number;
  tolerance: number;
  relative: boolean;
  formats: string[] | null;
}

export interface FieldAccuracyConfig extends EvaluatorBase {
  type: 'field_accuracy';
  fields: FieldSpec[];
  aggregation: 'weighted_average' | 'all_or_nothing';
}

export interface LatencyConfig extends EvaluatorBase {
  type: 'latency';
  thresholdMs: number;
}

export interface CostConfig extends EvaluatorBase {
  type: 'cost';
  budgetUsd: number;
}

export interface TokenUsageConfig extends EvaluatorBase {
  type: 'token_usage';
  maxTotal: number | null;
  maxInput: number | null;
  maxOutput: number | null;
}

export interface ToolCallExpectation {
  tool: string;
  /** Keys compared by deep equality; 'any' or absent skips the comparison. */
  args: 'any' | Record<string, unknown> | null;
  maxDurationMs: number | null;
}

export interface ToolTrajectoryConfig extends EvaluatorBase {
  type: 'tool_trajectory';
  mode: 'any_order' | 'in_order' | 'exact';
  minimums: Record<string, number>;
  expected: ToolCallExpectation[];
  /** AgentV 5's `trajectory:*` are pass/fail: any shortfall scores 0 (v2's `tool_trajectory` scores the fraction met). */
  allOrNothing?: boolean;
}

export interface ExecutionMetricsConfig extends EvaluatorBase {
  type: 'execution_metrics';
  maxToolCalls: number | null;
  maxLlmCalls: number | null;
  maxTokens: number | null;
  maxCostUsd: number | null;
  maxDurationMs: number | null;
  targetExplorationRatio: number | null;
  explorationTolerance: number;
}

/** Evaluators that score the answer and its trace without a model or a process. */
export type DeterministicConfig =
  | FieldAccuracyConfig
  | LatencyConfig
  | CostConfig
  | TokenUsageConfig
  | ToolTrajectoryConfig
  | ExecutionMetricsConfig;

interface CodeJudgeConfig extends EvaluatorBase {
  type: 'code_judge';
  /** A shell command string, or an argv list run without a shell. */
  command: string | string[];
  cwd: string;
  /** Any other keys of the evaluator, passed to the script as `config`. */
  config: Record<string, unknown>;
}

/** promptfoo `javascript` / `python` (and `not-`): the suite's code grades the answer. */
export interface CodeAssertionConfig extends EvaluatorBase {
  type: 'code_assertion';
  source: CodeSource;
  /** `not-javascript` / `not-python`: pass and fail swap (the score stays the code's). */
  inverse: boolean;
  /** A numeric result passes at or above it (else above 0); a Python result object below it fails. */
  threshold: number | null;
  /** The assertion's `config`, given to the code as `context.config`. */
  config: Record<string, unknown> | null;
  codeContext: CodeContext;
}

/** promptfoo `similar` (and `not-similar`): the answer's embedding against each value's. */
export interface SimilarityConfig extends EvaluatorBase {
  type: 'similarity';
  values: string[];
  /** Default 0.75 (promptfoo). */
  threshold: number;
  inverse: boolean;
}

/** What a provider's answers are checked against by the tool-call assertions (provider-tools.ts). */
export interface ProviderToolSchema {
  /** The provider's target name (a case's `target`; the first when the case names none). */
  target: string;
  /** The OpenAI API it calls; null when it is not an OpenAI model (no tools are sent). */
  api: 'chat' | 'responses' | null;
  tools: Record<string, unknown>[] | null;
  functions: Record<string, unknown>[] | null;
}

/**
 * promptfoo `is-valid-openai-tools-call` / `is-valid-openai-function-call`: the calls of the
 * answer against the tools (functions) of the provider that answered (openai-tool-call.ts).
 */
export interface ToolCallConfig extends EvaluatorBase {
  type: 'tool_call';
  kind: 'tools' | 'function';
  providers: ProviderToolSchema[];
}

/** promptfoo's model-graded assertions, each graded by promptfoo's rule (src/evaluators/model-graded.ts). */
export const MODEL_GRADED_KINDS = [
  'factuality',
  'model-graded-closedqa',
  'g-eval',
  'answer-relevance',
  'context-faithfulness',
  'context-relevance',
  'context-recall',
  'conversation-relevance',
] as const;

export interface ModelGradedConfig extends EvaluatorBase {
  type: 'model_graded';
  kind: (typeof MODEL_GRADED_KINDS)[number];
  /** The assertion's value, rendered: the reference (factuality, context-recall) or the criteria. */
  values: string[];
  threshold: number;
  /**
   * The suite's own grader prompt (`rubricPrompt`): one text, a list (one per step:
   * context-faithfulness) or by step name (g-eval's `steps`, `evaluate`). Replaces our prompt
   * text for that step, never the answer schema.
   */
  rubricPrompt: string | string[] | Record<string, string> | null;
  /** factuality's score per category (promptfoo `options.factuality`): A, B, C, E 1 and D 0 by default. */
  factuality: Record<'A' | 'B' | 'C' | 'D' | 'E', number>;
  /** conversation-relevance's window, in turns (default 5). */
  windowSize: number;
  /** `not-g-eval`, `not-conversation-relevance`: pass and fail swapped, scored 1 - s (promptfoo 0.121). */
  inverse?: boolean;
  /** The context-* kinds: promptfoo's `contextTransform`, the suite's code that yields the context. */
  contextTransform?: CodeSource;
}

export type AggregatorConfig =
  | { type: 'weighted_average'; weights: Record<string, number> }
  /** AgentV 5's binary checks made of parts (a list of tools): 1 only when every child scores 1. */
  | { type: 'all_or_nothing' }
  | { type: 'code_judge'; command: string | string[]; cwd: string }
  | { type: 'llm_judge'; prompt: PromptTemplate | null };

export interface CompositeConfig extends EvaluatorBase {
  type: 'composite';
  children: EvaluatorConfig[];
  aggregator: AggregatorConfig;
  /**
   * promptfoo / AgentV 5 `assert-set`: passes when its score reaches `threshold`, or without
   * one when every child that weighs passes (its score is still the weighted mean).
   */
  assertSet?: { threshold: number | null };
}

/** AgentV 5 / promptfoo text checks, named as those formats name them. */
export const TEXT_CHECKS = [
  'equals',
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'icontains-any',
  'icontains-all',
  'starts-with',
  'ends-with',
  'regex',
  'is-json',
] as const;
export type TextCheck = (typeof TEXT_CHECKS)[number];

export interface TextAssertionConfig extends EvaluatorBase {
  type: 'text_assertion';
  check: TextCheck;
  /** The expected strings (one for single-value checks; none for `is-json`). */
  values: string[];
  /** `regex` flags. */
  flags: string | null;
  /** `is-json`: a JSON Schema the parsed answer must satisfy. */
  schema: Record<string, unknown> | null;
  /**
   * promptfoo's comparisons (promptfoo-shaped suites): `equals`, `starts-with`, `ends-with` do
   * not trim the answer (AgentV 5's do).
   */
  exact?: true;
  /** promptfoo's `equals` with a number (loose `==`, as promptfoo) or an object (deep-equal to the parsed answer). */
  expected?: number | Record<string, unknown> | unknown[];
}

export type EvaluatorConfig =
  | LlmJudgeConfig
  | CodeJudgeConfig
  | CompositeConfig
  | DeterministicConfig
  | TextAssertionConfig
  | CodeAssertionConfig
  | SimilarityConfig
  | ModelGradedConfig
  | ToolCallConfig;

/**
 * Name of the evaluator that a case's inline `rubrics` become. Its gating violations are shown
 * unprefixed: the rubric items are the case's own, not those of an evaluator the user named.
 */
export const INLINE_RUBRIC_EVALUATOR = 'rubric';

/**
 * How a case's evaluator results become its verdict. Absent: AgentV v2 / rubric-eval's
 * pass/borderline/fail (README "Scoring"). `threshold`: AgentV 5's weighted score against a
 * threshold, where a failed `required` evaluator zeroes the case.
 */
export type CaseScoring =
  | { kind: 'threshold'; threshold: number }
  /**
   * promptfoo's: the test passes when every assertion passes, or, with a test `threshold`, when
   * the weighted score reaches it; no borderline.
   */
  | { kind: 'promptfoo'; threshold: number | null };

export interface EvalCase {
  id: string;
  /** What the case is shown as, when its id is not its name (a promptfoo test's `description`). */
  label?: string;
  /** Display path of the suite file this case came from. */
  suitePath: string;
  pos: Position;
  /** Display path of the file holding the case when it is not the suite file (a tests file); `pos` is in it. */
  sourcePath?: string;
  expectedOutcome: string;
  inputMessages: Message[];
  expectedMessages: Message[];
  conversationId: string | null;
  /** The case's own `reference_answer`, else null (the last expected assistant message is used). */
  referenceAnswer?: string | null;
  /** Target named by the case's `execution.target`, if any. */
  target: string | null;
  evaluators: EvaluatorConfig[];
  /** Set by the loader of a format whose verdicts differ from v2's (AgentV 5). */
  scoring?: CaseScoring;
  /** Cases that move together (docs/effect.md); a name is per suite file. */
  cluster?: string;
  /** promptfoo `select-best` / `max-score`: this case is judged against its siblings too (docs/promptfoo-compare.md). */
  compare?: CompareConfig;
}

/**
 * promptfoo's comparison assertions of one test, on each of its (prompt, provider) cases: graded
 * after every sibling is, by src/pipeline/compare-siblings.ts. Keys in sorted order (it is hashed).
 */
export interface CompareConfig {
  /** The sibling cases' ids, this one included, in promptfoo's order (provider, then prompt). */
  cases: string[];
  /** `max-score`: the sibling with the highest weighted score of the other assertions passes. */
  maxScore: MaxScoreConfig | null;
  /** `select-best`: the judge picks the answer that best meets `criterion`; only it passes. */
  selectBest: { criterion: string; name: string } | null;
}

export interface MaxScoreConfig {
  /**
   * The other assertions' weights, each by its evaluator's position (`at`: its index, then the
   * child's in an assert-set) and its name there (`path`, which the reasons show and a result must match).
   */
  parts: { at: number[]; path: string[]; weight: number }[];
  method: 'average' | 'sum';
  name: string;
  /** The best aggregate must reach it, or no sibling passes; null: none. */
  threshold: number | null;
}

export interface EvalSuite {
  /** Path relative to the working directory, forward slashes. */
  path: string;
  absPath: string;
  description: string | null;
  dataset: string | null;
  /** Suite `execution.target`, else root `target`. */
  target: string | null;
  cases: EvalCase[];
  /** `min_pass_rate`: the share of this suite's cases that must pass (overrides the `min-pass-rate` input). */
  minPassRate?: number;
  /** The suite's `repeat` (README "Repeats"), when it sets one. */
  repeat?: RepeatSetting;
  /**
   * AgentV 5: the providers the suite can name (inline, then its `.agentv/` catalog), which
   * stand in for a targets.yaml when the `targets` input is not set.
   */
  providers?: ProviderEntry[];
}

export interface SuiteLoadOptions {
  /**
   * Only what a case sends to its target (inputs, prompts, vars): its assertions and evaluators
   * are neither compiled nor checked, and their script files not read. For the judge stage's
   * head cases, whose assertions are never used (the base branch's grade them).
   */
  inputsOnly?: boolean;
}
