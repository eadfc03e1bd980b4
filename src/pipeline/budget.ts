import { type EvaluatorResult, type RunResults } from '../core/results.js';
import { type EndpointConfig } from '../judge/chat.js';
import { estimateCost, priceFor, type PriceTable } from '../judge/pricing.js';
import { type TargetAnswer } from '../targets/providers.js';

/** The start of the error a judge call refused by the cap carries (the case becomes `skipped: budget`). */
const BUDGET_REACHED = 'budget-usd reached';

/**
 * The run's estimated spend against `budget-usd`: judge calls (from `judge-prices` and the tokens
 * each call used, as the reports estimate them) and target calls (the cost a target reports, else
 * its tokens at its model's price). Checked before each call; calls already in flight when the cap
 * is reached finish, so the spend can pass the cap by at most what `concurrency` calls cost.
 */
export class SpendMeter {
  private spentUsd = 0;

  constructor(
    readonly capUsd: number,
    private readonly prices: PriceTable,
  ) {}

  allow(): boolean {
    return this.spentUsd < this.capUsd;
  }

  add(usd: number | null): void {
    if (usd !== null && Number.isFinite(usd) && usd > 0) this.spentUsd += usd;
  }

  /**
   * A target's answer: its own cost when it reports one, else its tokens at its model's price, and
   * a model with no known price at the dearest price known (a target's model is named only by its
   * answer, too late to refuse the run; counted high, the cap stops early rather than overspend).
   */
  addTarget(a: Pick<TargetAnswer, 'costUsd' | 'promptTokens' | 'completionTokens' | 'model'>): void {
    if (a.costUsd !== null) return this.add(a.costUsd);
    if (!a.model) return;
    const tokens = [a.model, a.promptTokens ?? 0, a.completionTokens ?? 0] as const;
    this.add(
      estimateCost(...tokens, this.prices) ?? estimateCost(...tokens, { [a.model]: dearest(this.prices) }),
    );
  }

  get spent(): number {
    return Math.round(this.spentUsd * 1e6) / 1e6;
  }
}

/** The highest input and output prices of the table: what an unpriced model's tokens count at. */
function dearest(prices: PriceTable): { input: number; output: number } {
  const all = Object.values(prices);
  return {
    input: Math.max(0, ...all.map((p) => p.input)),
    output: Math.max(0, ...all.map((p) => p.output)),
  };
}

/**
 * A cap that cannot be enforced is an input error, found before any call: the judge's model
 * must have a price (built in, or given with `judge-prices`).
 */
export function budgetProblems(
  budgetUsd: number | null | undefined,
  endpoint: EndpointConfig | null,
  prices: PriceTable,
): string[] {
  if (!budgetUsd || !endpoint) return [];
  const model = endpoint.azure?.deployment ?? endpoint.model;
  if (priceFor(model, prices)) return [];
  return [
    `inputs: budget-usd: the judge model '${model}' has no known price, so its spend cannot be estimated; give it with judge-prices, e.g. {"${model}": {"input": 0.4, "output": 1.6}} (USD per million tokens)`,
  ];
}

/** Did the cap refuse a judge call of this case (in any evaluator, composites' children included)? */
export function refusedByBudget(evaluators: readonly EvaluatorResult[]): boolean {
  return evaluators.some(
    (e) =>
      (e.verdict === 'error' && e.error?.startsWith(BUDGET_REACHED)) || refusedByBudget(e.children ?? []),
  );
}

/** The spend against `budget-usd`, and how many cases it skipped, in the results. */
export function withSpend(results: RunResults, spend: SpendMeter | null): RunResults {
  if (!spend) return results;
  let skipped = 0;
  for (const s of results.suites) for (const c of s.cases) if (c.skipped === 'budget') skipped++;
  return { ...results, budget: { usd: spend.capUsd, spent_usd: spend.spent, skipped } };
}
