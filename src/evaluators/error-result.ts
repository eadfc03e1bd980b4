import { type EvaluatorResult } from '../core/results.js';
import { type EvaluatorConfig } from '../suite/types.js';

/** An evaluator that could not grade (its code failed, a pattern was refused): score 0, `error`, never a pass. */
export function errorResult(
  config: Pick<EvaluatorConfig, 'name' | 'type' | 'weight'>,
  error: string,
): EvaluatorResult {
  return {
    name: config.name,
    type: config.type,
    weight: config.weight,
    score: 0,
    verdict: 'error',
    error,
    gating_violations: [],
  };
}
