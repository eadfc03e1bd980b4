/** What a run, a case or an evaluator spent on the judge: the results file's `usage`. */
export interface Usage {
  judge_calls: number;
  cached_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Estimated from a price table; null when the model's price is unknown. */
  cost_usd: number | null;
}
