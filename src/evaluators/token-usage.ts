import { type TokenUsageConfig } from '../suite/types.js';
import { type Score, scored, unavailable } from './score.js';
import { type TokenUsage } from './candidate-answer.js';

/**
 * AgentV's `token_usage`: each limit given (`max_input`, `max_output`, `max_total`, where the
 * total counts cached tokens too) must hold, equal passing; 1 when all hold, else 0.
 */
export function scoreTokenUsage(
  config: Pick<TokenUsageConfig, 'maxTotal' | 'maxInput' | 'maxOutput'>,
  usage: TokenUsage | null,
): Score {
  if (!usage)
    return unavailable('No token usage data available in trace', 'Token usage not reported by provider');
  const cached = usage.cached ?? 0;
  const total = usage.input + usage.output + cached;
  const hits: string[] = [];
  const misses: string[] = [];
  const check = (label: string, actual: number, max: number | null) => {
    if (max === null) return;
    if (actual <= max) hits.push(`${label} tokens ${actual} <= ${max}`);
    else misses.push(`${label} tokens ${actual} > ${max}`);
  };
  check('Input', usage.input, config.maxInput);
  check('Output', usage.output, config.maxOutput);
  check('Total', total, config.maxTotal);
  return scored(
    misses.length === 0 ? 1 : 0,
    hits,
    misses,
    `token_usage input=${usage.input}, output=${usage.output}, cached=${cached}, total=${total}`,
  );
}
