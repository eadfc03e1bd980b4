/** Tokens a target reported for one call (AgentV's `token_usage`). */
export interface TokenUsage {
  input: number;
  output: number;
  cached?: number;
}

/** The candidate's answer as a target produced it. */
export interface CandidateAnswer {
  text: string;
  /** Full output messages when the target gave them (CLI targets may). */
  outputMessages: unknown[] | null;
  /** The target call's metrics, when known: `duration_ms` as reported, else as measured. */
  durationMs: number | null;
  tokenUsage: TokenUsage | null;
  costUsd: number | null;
  /** What a promptfoo transform made of the text, when not text (code is given this as `output`). */
  value?: unknown;
}
