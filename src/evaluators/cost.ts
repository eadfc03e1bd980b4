import { type CostConfig } from '../suite/types.js';
import { type Score, scored, unavailable } from './score.js';

export const usd = (n: number) => `$${n.toFixed(4)}`;

/** AgentV's `cost`: the target call's `cost_usd` against `budget`; equal passes. */
export function scoreCost(config: Pick<CostConfig, 'budgetUsd'>, costUsd: number | null): Score {
  const budget = config.budgetUsd;
  if (costUsd === null)
    return unavailable('No cost data available in trace', 'Execution cost not reported by provider');
  const ok = costUsd <= budget;
  return scored(
    ok ? 1 : 0,
    ok ? [`Cost ${usd(costUsd)} <= ${usd(budget)} budget`] : [],
    ok ? [] : [`Cost ${usd(costUsd)} > ${usd(budget)} budget`],
    `Execution cost ${usd(costUsd)} (budget: ${usd(budget)})`,
  );
}
