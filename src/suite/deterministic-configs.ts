import { type Position } from '../core/diagnostics.js';
import { DETERMINISTIC_TYPES, type RawEvaluator } from './v2/schema.js';
import {
  type DeterministicConfig,
  type FieldSpec,
  type ToolCallExpectation,
  type ToolTrajectoryConfig,
} from './types.js';

export type DeterministicType = (typeof DETERMINISTIC_TYPES)[number];

export const isDeterministicType = (t: string): t is DeterministicType =>
  (DETERMINISTIC_TYPES as readonly string[]).includes(t);

interface Base {
  name: string;
  weight: number;
  pos: Position;
}

/** A note about a key that is accepted but has no effect, with where it was written. */
export interface ConfigNote {
  /** Path below the evaluator, e.g. ['expected', 0, 'input']. */
  at: (string | number)[];
  message: string;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The typed config of a deterministic evaluator from its raw YAML, already checked by its zod
 * schema (src/suite/schema.ts). Key names and defaults are AgentV v2.6.1's.
 */
export function deterministicConfig(
  type: DeterministicType,
  raw: RawEvaluator,
  base: Base,
  notes: ConfigNote[] = [],
): DeterministicConfig {
  switch (type) {
    case 'field_accuracy':
      return {
        ...base,
        type,
        fields: (raw.fields as Record<string, unknown>[]).map(fieldSpec),
        aggregation: raw.aggregation === 'all_or_nothing' ? 'all_or_nothing' : 'weighted_average',
      };
    case 'latency':
      return { ...base, type, thresholdMs: raw.threshold as number };
    case 'cost':
      return { ...base, type, budgetUsd: raw.budget as number };
    case 'token_usage':
      return {
        ...base,
        type,
        maxTotal: num(raw.max_total),
        maxInput: num(raw.max_input),
        maxOutput: num(raw.max_output),
      };
    case 'tool_trajectory':
      return trajectoryConfig(raw, base, notes);
    case 'execution_metrics':
      return {
        ...base,
        type,
        maxToolCalls: num(raw.max_tool_calls),
        maxLlmCalls: num(raw.max_llm_calls),
        maxTokens: num(raw.max_tokens),
        maxCostUsd: num(raw.max_cost_usd),
        maxDurationMs: num(raw.max_duration_ms),
        targetExplorationRatio: num(raw.target_exploration_ratio),
        explorationTolerance: num(raw.exploration_tolerance) ?? 0.2,
      };
  }
}

function fieldSpec(f: Record<string, unknown>): FieldSpec {
  return {
    path: f.path as string,
    match: f.match as FieldSpec['match'],
    required: f.required !== false,
    weight: num(f.weight) ?? 1,
    tolerance: num(f.tolerance) ?? 0,
    relative: f.relative === true,
    formats: Array.isArray(f.formats) ? f.formats.filter((x): x is string => typeof x === 'string') : null,
  };
}

function trajectoryConfig(raw: RawEvaluator, base: Base, notes: ConfigNote[]): ToolTrajectoryConfig {
  const items = (raw.expected as Record<string, unknown>[] | undefined) ?? [];
  const expected = items.map((item, i): ToolCallExpectation => {
    for (const key of ['input', 'output'] as const) {
      if (item[key] !== undefined)
        notes.push({
          at: ['expected', i, key],
          message: `\`${key}\` of an expected tool call is not compared (AgentV v2.6.1 compares only \`args\`); use \`args\` to check arguments`,
        });
    }
    const args = item.args;
    return {
      tool: item.tool as string,
      args:
        args === 'any' ? 'any' : args && typeof args === 'object' ? (args as Record<string, unknown>) : null,
      maxDurationMs: num(item.max_duration_ms),
    };
  });
  return {
    ...base,
    type: 'tool_trajectory',
    mode: raw.mode as ToolTrajectoryConfig['mode'],
    minimums: (raw.minimums as Record<string, number> | undefined) ?? {},
    expected,
  };
}
