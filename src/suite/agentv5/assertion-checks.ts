import { type AssertionContext, type Base } from './assertion-context.js';
import { reportAt, withoutNegation } from './assertion-base.js';
import { deterministicConfig } from '../deterministic-configs.js';
import { type RawEvaluator } from '../v2/schema.js';
import { type EvaluatorConfig, type TextCheck } from '../types.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { boundedPatternProblem } from '../../core/bounded-pattern.js';
import { schemaExpansionProblem } from '../schema-expansion.js';
import { schemaPatternProblem } from '../schema-patterns.js';
import { readReferencedFile } from '../../core/user-file.js';
import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../core/is-record.js';

/** The assertion kinds checked without a judge: text checks, measured checks, trajectories. */

/** The measured checks (latency, cost, fields, trace metrics, tokens): v2's deterministic evaluators. */
export function measuredAssertion(
  type: 'latency' | 'cost' | 'field-accuracy' | 'execution-metrics' | 'token-usage',
  item: Record<string, unknown>,
  base: Base,
): EvaluatorConfig {
  const v2 = type.replace('-', '_') as
    'latency' | 'cost' | 'field_accuracy' | 'execution_metrics' | 'token_usage';
  const raw = {
    ...item,
    ...(type === 'cost' && item.budget === undefined ? { budget: item.threshold } : {}),
  };
  return deterministicConfig(v2, raw as unknown as RawEvaluator, base);
}

export function textAssertion(
  check: TextCheck,
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const { doc, sink, subject } = ctx;
  const raw = item.value;
  const many = check.endsWith('-any') || check.endsWith('-all');
  const exact = ctx.flavour === 'promptfoo' ? { exact: true as const } : {};
  if (check === 'is-json') {
    const schema = jsonSchemaValue(raw, at, ctx);
    if (schema === undefined) return undefined;
    const refused = schema === null ? null : schemaPatternProblem(schema);
    if (refused) {
      sink.error(doc.locate([...at, 'value', ...refused.at]), 'regex', refused.message, subject);
      return undefined;
    }
    const costly = schema === null ? null : schemaExpansionProblem(schema);
    if (costly) {
      sink.error(doc.locate([...at, 'value', ...costly.at]), 'schema', costly.message, subject);
      return undefined;
    }
    return { ...base, type: 'text_assertion', check, values: [], flags: null, schema };
  }
  // promptfoo compares a number or an object given to `equals` as a value, not as text.
  if (check === 'equals' && ctx.flavour === 'promptfoo' && raw !== null && typeof raw === 'object')
    return {
      ...base,
      type: 'text_assertion',
      check,
      values: [],
      flags: null,
      schema: null,
      ...exact,
      expected: raw as Record<string, unknown>,
    };
  if (check === 'equals' && ctx.flavour === 'promptfoo' && typeof raw === 'number')
    return {
      ...base,
      type: 'text_assertion',
      check,
      values: [String(raw)],
      flags: null,
      schema: null,
      ...exact,
      expected: raw,
    };
  const values = (Array.isArray(raw) ? raw : [raw]).map((v) => (typeof v === 'number' ? String(v) : v));
  if (values.length === 0 || values.some((v) => typeof v !== 'string') || (!many && Array.isArray(raw))) {
    sink.error(
      doc.locate([...at, 'value']),
      'value',
      `\`${check}\` needs \`value\`: ${many ? 'a list of strings' : 'a string'}`,
      subject,
    );
    return undefined;
  }
  const rendered = (values as string[]).map(ctx.render);
  const flags = typeof item.flags === 'string' ? item.flags : null;
  if (check === 'regex') {
    try {
      new RegExp(rendered[0]!, flags ?? undefined);
    } catch (err) {
      sink.error(doc.locate([...at, 'value']), 'regex', (err as Error).message, subject);
      return undefined;
    }
    // Valid JavaScript, but it must also run in linear time: what RE2 refuses is refused here.
    const refused = boundedPatternProblem(rendered[0]!, flags ?? '');
    if (refused) {
      sink.error(doc.locate([...at, 'value']), 'regex', refused, subject);
      return undefined;
    }
  }
  return { ...base, type: 'text_assertion', check, values: rendered, flags, schema: null, ...exact };
}

/**
 * `is-json`'s optional schema: an object, or (promptfoo) a string holding it in YAML or JSON, or
 * `file://` naming a file that does. Null without one; undefined when it is wrong (reported).
 */
function jsonSchemaValue(
  raw: unknown,
  at: PathSegment[],
  ctx: AssertionContext,
): Record<string, unknown> | null | undefined {
  const bad = (message: string) => {
    ctx.sink.error(ctx.doc.locate([...at, 'value']), 'value', message, ctx.subject);
    return undefined;
  };
  if (raw === undefined || raw === null) return null;
  if (isRecord(raw)) return raw;
  if (typeof raw !== 'string')
    return bad('`is-json` takes an optional JSON Schema as `value`: an object, YAML text, or file://');
  let text = raw;
  if (raw.startsWith('file://')) {
    const read = readReferencedFile(ctx.ws, raw.slice('file://'.length), ctx.dir, (_r, m) => bad(m), raw);
    if (!read) return undefined;
    text = read.text;
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    return bad(`\`is-json\` schema is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  return isRecord(parsed) ? parsed : bad('`is-json` schema must be a mapping (a JSON Schema object)');
}

export function trajectory(
  type: string,
  value: unknown,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const bad = (what: string) =>
    reportAt(ctx, [...at, 'value'], 'value', `\`${type}\` needs \`value\`: ${what}`);
  // Every AgentV 5 trajectory check is pass/fail.
  const t = { ...base, type: 'tool_trajectory' as const, allOrNothing: true };
  if (type === 'trajectory:tool-used') {
    if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'string')) {
      const tools = value as string[];
      const { negated, rest: outer } = withoutNegation(base);
      if (!negated)
        return {
          ...t,
          mode: 'any_order',
          minimums: Object.fromEntries(tools.map((n) => [n, 1])),
          expected: [],
        };
      // Forbidden tools: the check holds only when none of them was called (not "not all of them").
      const children = tools.map((tool): EvaluatorConfig => ({
        ...t,
        name: tool,
        weight: 1,
        negate: true,
        required: undefined,
        minScore: undefined,
        mode: 'any_order',
        minimums: { [tool]: 1 },
        expected: [],
      }));
      return { ...outer, type: 'composite', children, aggregator: { type: 'all_or_nothing' } };
    }
    const name =
      typeof value === 'string'
        ? value
        : isRecord(value) && typeof value.name === 'string'
          ? value.name
          : null;
    if (!name) return bad('a tool name, a list of tool names, or {name, min}');
    const min = isRecord(value) && typeof value.min === 'number' ? value.min : 1;
    return { ...t, mode: 'any_order', minimums: { [name]: min }, expected: [] };
  }
  if (type === 'trajectory:tool-sequence') {
    const steps = isRecord(value) && Array.isArray(value.steps) ? value.steps : null;
    if (!steps) return bad('{mode: in_order|exact, steps: [tool, ...]}');
    const expected = steps.map((s) => ({
      tool: typeof s === 'string' ? s : isRecord(s) ? String(s.name ?? s.tool) : String(s),
      args: isRecord(s) && isRecord(s.args) ? s.args : null,
      maxDurationMs: isRecord(s) && typeof s.max_duration_ms === 'number' ? s.max_duration_ms : null,
    }));
    const mode = isRecord(value) && value.mode === 'exact' ? 'exact' : 'in_order';
    return { ...t, mode, minimums: {}, expected };
  }
  if (!isRecord(value) || typeof value.name !== 'string') return bad('{name, args, mode?}');
  // One call anywhere in the trace whose arguments include these (AgentV's partial match).
  return {
    ...t,
    mode: 'in_order',
    minimums: {},
    expected: [{ tool: value.name, args: isRecord(value.args) ? value.args : 'any', maxDurationMs: null }],
  };
}
