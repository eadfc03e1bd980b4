import { isDeepStrictEqual } from 'node:util';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';
import { boundedRegExpEngine, compileBoundedPattern, PatternRefusedError } from '../core/bounded-pattern.js';
import { type TextAssertionConfig } from '../suite/types.js';
import { type Score } from './score.js';
import { loadAjv } from './load-ajv.js';

const q = (v: string) => JSON.stringify(v);

/** A check is all or nothing: 1 with the hit, or 0 with the miss (AgentV 5's deterministic assertions). */
function decide(passed: boolean, hit: string, miss: string): Score {
  return passed
    ? { score: 1, verdict: 'pass', hits: [hit], misses: [], reasoning: null }
    : { score: 0, verdict: 'fail', hits: [], misses: [miss], reasoning: null };
}

function anyOf(output: string, values: readonly string[], fold: boolean): Score {
  const hay = fold ? output.toLowerCase() : output;
  const found = values.find((v) => hay.includes(fold ? v.toLowerCase() : v));
  const how = fold ? ' (case-insensitive)' : '';
  return decide(
    found !== undefined,
    `output contains ${q(found ?? '')}${how}`,
    `output contains none of ${values.map(q).join(', ')}${how}`,
  );
}

function allOf(output: string, values: readonly string[], fold: boolean): Score {
  const hay = fold ? output.toLowerCase() : output;
  const missing = values.filter((v) => !hay.includes(fold ? v.toLowerCase() : v));
  const how = fold ? ' (case-insensitive)' : '';
  return decide(
    missing.length === 0,
    `output contains all ${values.length} expected strings${how}`,
    `output is missing ${missing.map(q).join(', ')}${how}`,
  );
}

const validators = new WeakMap<object, ValidateFunction>();
let Ajv: typeof AjvClass | undefined;

/**
 * Loads what scoring `config` needs beyond itself: ajv, for `is-json` with a schema. A large
 * package, evaluated only for suites that have such a check rather than at every start-up.
 */
export async function prepareTextAssertion(config: TextAssertionConfig): Promise<void> {
  if (config.check === 'is-json' && config.schema && !Ajv) Ajv = await loadAjv();
}

/** `is-json`, optionally against a JSON Schema (compiled once per config; ajv does the draft's semantics). */
function isJson(output: string, schema: Record<string, unknown> | null): Score {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return decide(false, '', 'output is not valid JSON');
  }
  if (!schema) return decide(true, 'output is valid JSON', '');
  let validate = validators.get(schema);
  if (!validate) {
    if (!Ajv) throw new Error('is-json with a schema is scored before prepareTextAssertion loaded ajv');
    // Every `pattern` in the schema runs on the linear-time engine; one it refuses throws here,
    // and the check is an error (see evaluate.ts), never a pass.
    validate = new Ajv({ allErrors: true, strict: false, code: { regExp: boundedRegExpEngine } }).compile(
      schema,
    );
    validators.set(schema, validate);
  }
  if (JSON.stringify(schema).includes('"uniqueItems"')) boundUniqueItems(parsed);
  const ok = validate(parsed);
  const why = (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim())
    .join('; ');
  return decide(ok, 'output is valid JSON matching the schema', `output does not match the schema: ${why}`);
}

/**
 * ajv checks `uniqueItems` over objects pairwise (n² deep comparisons, on the main thread): an
 * answer with a long array would hold the run past cancel. Such an answer is not checked.
 */
const MAX_UNIQUE_ITEMS = 2000;

export function boundUniqueItems(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v) && v.length > MAX_UNIQUE_ITEMS)
      throw new PatternRefusedError(
        `the schema has \`uniqueItems\` and the answer has an array of ${v.length} items; over ${MAX_UNIQUE_ITEMS} exceeds the time budget: not checked`,
      );
    stack.push(...Object.values(v));
  }
}

/**
 * promptfoo's `equals` with a value that is not a string: an object or list is deep-equal to the
 * answer parsed as JSON; a number compares as JavaScript's `==` does (`" 42\n" == 42`).
 */
function equalsValue(output: string, expected: number | Record<string, unknown> | unknown[]): Score {
  const shown = JSON.stringify(expected);
  if (typeof expected === 'number')
    return decide(Number(output) === expected, `output equals ${shown}`, `output does not equal ${shown}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return decide(false, '', `output is not JSON, so it does not equal ${cutShown(shown)}`);
  }
  return decide(
    isDeepStrictEqual(parsed, expected),
    `output equals ${cutShown(shown)}`,
    `output does not equal ${cutShown(shown)}`,
  );
}

const cutShown = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

/** Scores one text assertion against the answer; pure. */
export function scoreTextAssertion(config: TextAssertionConfig, output: string): Score {
  const v = config.values[0] ?? '';
  switch (config.check) {
    case 'equals':
      if (config.expected !== undefined) return equalsValue(output, config.expected);
      return decide(
        config.exact ? output === v : output.trim() === v.trim(),
        `output equals ${q(v)}`,
        `output does not equal ${q(v)}`,
      );
    case 'contains':
      return decide(output.includes(v), `output contains ${q(v)}`, `output does not contain ${q(v)}`);
    case 'icontains':
      return decide(
        output.toLowerCase().includes(v.toLowerCase()),
        `output contains ${q(v)} (case-insensitive)`,
        `output does not contain ${q(v)} (case-insensitive)`,
      );
    case 'contains-any':
      return anyOf(output, config.values, false);
    case 'icontains-any':
      return anyOf(output, config.values, true);
    case 'contains-all':
      return allOf(output, config.values, false);
    case 'icontains-all':
      return allOf(output, config.values, true);
    case 'starts-with':
      return decide(
        config.exact ? output.startsWith(v) : output.trim().startsWith(v.trim()),
        `output starts with ${q(v)}`,
        `output does not start with ${q(v)}`,
      );
    case 'ends-with':
      return decide(
        config.exact ? output.endsWith(v) : output.trim().endsWith(v.trim()),
        `output ends with ${q(v)}`,
        `output does not end with ${q(v)}`,
      );
    case 'regex': {
      // Compiled at load time too, so a bad pattern is a located error, never a run-time surprise;
      // linear time in the answer whatever the pattern (src/core/bounded-pattern.ts).
      const re = compileBoundedPattern(v, config.flags ?? '');
      const shown = `/${v}/${config.flags ?? ''}`;
      return decide(re.test(output), `output matches ${shown}`, `output does not match ${shown}`);
    }
    case 'is-json':
      return isJson(output, config.schema);
  }
}
