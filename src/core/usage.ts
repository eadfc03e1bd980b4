/** What a run, a case or an evaluator spent on the judge: the results file's `usage`. */
export interface Usage {
  judge_calls: number;
  cached_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Estimated from a price table; null when the model's price is unknown. */
  cost_usd: number | null;
}

/**
 * An integer with comma thousands (`12,345`), as `toLocaleString('en-US')` writes it. Not that:
 * its first call loads the runtime's number formats, about 12 ms at the end of every run.
 */
export function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
