import { type Position } from '../diagnostics.js';
import { type RubricSet } from '../rubric/types.js';

/** A file attached to a message, read once at load time. */
export interface FileAttachment {
  /** Path relative to the workspace root, with forward slashes. */
  path: string;
  absPath: string;
  text: string;
  /** Instruction files (`*.instructions.md`, `*.prompt.md`, `SKILL.md`) are guidelines in AgentV's terms. */
  guideline: boolean;
}

export type ContentPart = { type: 'text'; text: string } | { type: 'file'; file: FileAttachment };

export interface Message {
  role: string;
  parts: ContentPart[];
}

export interface PromptTemplate {
  path: string;
  template: string;
}

interface EvaluatorBase {
  name: string;
  /** Weight of this evaluator in the case score (composite children: see the aggregator). */
  weight: number;
  pos: Position;
}

export interface LlmJudgeConfig extends EvaluatorBase {
  type: 'llm_judge';
  rubrics: RubricSet | null;
  prompt: PromptTemplate | null;
}

export interface CodeJudgeConfig extends EvaluatorBase {
  type: 'code_judge';
  /** A shell command string, or an argv list run without a shell. */
  command: string | string[];
  cwd: string;
  /** Any other keys of the evaluator, passed to the script as `config`. */
  config: Record<string, unknown>;
}

export type AggregatorConfig =
  | { type: 'weighted_average'; weights: Record<string, number> }
  | { type: 'code_judge'; command: string | string[]; cwd: string }
  | { type: 'llm_judge'; prompt: PromptTemplate | null };

export interface CompositeConfig extends EvaluatorBase {
  type: 'composite';
  children: EvaluatorConfig[];
  aggregator: AggregatorConfig;
}

export type EvaluatorConfig = LlmJudgeConfig | CodeJudgeConfig | CompositeConfig;

export interface EvalCase {
  id: string;
  /** Display path of the suite file this case came from. */
  suitePath: string;
  pos: Position;
  expectedOutcome: string;
  inputMessages: Message[];
  expectedMessages: Message[];
  conversationId: string | null;
  /** Target named by the case's `execution.target`, if any. */
  target: string | null;
  evaluators: EvaluatorConfig[];
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
}
