import { type DiagnosticSink } from '../../core/diagnostics.js';
import { type Workspace } from '../../core/workspace.js';
import { type PathSegment, type SourceDocument } from '../../core/yaml-source.js';
import { type CodeSource, type EvaluatorConfig } from '../types.js';
import { type Flavour } from './test-matrix.js';
import { type SuiteProvider } from './suite-providers.js';

/**
 * What every AgentV 5 / promptfoo assertion mapper is given, and what it shares: below the three
 * mappers (tests-assertions.ts, assertion-checks.ts, promptfoo-assertions.ts), which use each other.
 */
export interface AssertionContext {
  doc: SourceDocument;
  sink: DiagnosticSink;
  ws: Workspace;
  /** The suite file's folder: relative script and prompt paths resolve from here. */
  dir: string;
  subject: string;
  /** Renders `{{ var }}` in assertion values with the test's vars. */
  render(text: string): string;
  /** promptfoo: the test's vars, the test, its transform (see promptfoo-assertions.ts). */
  promptfoo?: PromptfooTest;
  /** Whose comparison rules the suite's text checks follow (test-matrix.ts); AgentV 5's when absent. */
  flavour?: Flavour;
  /** promptfoo: where the test's `select-best` / `max-score` are noted (compare-assertions.ts). */
  compare?: CompareFound;
  /** The suite's providers, whose tools the tool-call assertions check answers against. */
  providers?: readonly SuiteProvider[];
}

/** promptfoo: what a test's assertions share (read by promptfoo-assertions.ts). */
export interface PromptfooTest {
  vars: Record<string, unknown>;
  test: Record<string, unknown>;
  /** The test's `options.transform`, else `defaultTest`'s: applied before every assertion. */
  transform: CodeSource | null;
  /** The test's `options` over `defaultTest`'s (rubricPrompt, factuality scores). */
  options: Record<string, unknown>;
}

export type Base = Pick<
  EvaluatorConfig,
  | 'name'
  | 'weight'
  | 'pos'
  | 'negate'
  | 'required'
  | 'minScore'
  | 'transforms'
  | 'codeContext'
  | 'assertionType'
>;

/** What a test's assertion lists held of `select-best` and `max-score` (compare-assertions.ts). */
export interface CompareFound {
  selectBest: { criterion: string; name: string } | null;
  maxScore: {
    method: 'average' | 'sum';
    /** By assertion type as written, as promptfoo keys them. */
    weights: Record<string, number>;
    threshold: number | null;
    name: string;
  } | null;
  /** Where the first of them is written (errors about the whole test point there). */
  at: PathSegment[] | null;
}
