import type { ValidateFunction } from 'ajv';
import { boundedRegExpEngine } from '../core/bounded-pattern.js';
import { excerpt } from '../core/diagnostics.js';
import { RubricEvalError } from '../core/errors.js';
import { type EvaluatorResult } from '../core/results.js';
import { type EvalCase, type ProviderToolSchema, type ToolCallConfig } from '../suite/types.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { errorResult } from './error-result.js';
import { loadAjv } from './load-ajv.js';
import { boundUniqueItems } from './text-assertion.js';
import { isRecord } from '../core/is-record.js';

/**
 * promptfoo's `is-valid-openai-tools-call` and `is-valid-openai-function-call`, by its rules:
 * the answer must be tool calls (a function call), each naming a function of the provider's
 * `tools` (`functions`) whose arguments are JSON that its `parameters` schema accepts. A schema
 * ajv cannot compile is an error, never a pass (provider-tools.ts refuses most at `validate`).
 */

/** Shown of an answer that is not a call, as promptfoo's reason quotes it. */
const shown = (v: unknown) => excerpt(JSON.stringify(v) ?? String(v), 500);

type Validator = (schema: Record<string, unknown>) => ValidateFunction;

const compiled = new WeakMap<object, ValidateFunction>();

/** ajv as promptfoo sets it up (strict schemas), patterns on the linear-time engine; formats are not checked. */
async function validator(): Promise<Validator> {
  const Ajv = await loadAjv();
  const ajv = new Ajv({ strictSchema: true, validateFormats: false, code: { regExp: boundedRegExpEngine } });
  return (schema) => {
    let v = compiled.get(schema);
    if (!v) compiled.set(schema, (v = ajv.compile(schema)));
    return v;
  };
}

let shared: Promise<Validator> | undefined;

/** Why one call fails its function's schema, or null when it passes; throws when the schema does not compile. */
function callProblem(
  call: { name: string; arguments: string },
  functions: readonly unknown[] | null,
  compile: Validator,
): string | null {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch (err) {
    return `the arguments of "${call.name}" are not JSON: ${(err as Error).message}`;
  }
  const fn = functions?.find((f) => isRecord(f) && f.name === call.name);
  const schema = isRecord(fn) ? fn.parameters : undefined;
  if (!isRecord(schema)) return `Called "${call.name}", but there is no function with that name`;
  let validate: ValidateFunction;
  try {
    validate = compile(schema);
  } catch (err) {
    throw new RubricEvalError(
      `the \`parameters\` schema of function '${call.name}' does not compile: ${(err as Error).message}`,
      { cause: err },
    );
  }
  if (JSON.stringify(schema).includes('"uniqueItems"')) boundUniqueItems(args);
  if (validate(args)) return null;
  return `Call to "${call.name}" does not match schema: ${excerpt(JSON.stringify(validate.errors), 1000)}`;
}

const isCall = (v: unknown): v is { name: string; arguments: string } =>
  isRecord(v) && typeof v.name === 'string' && typeof v.arguments === 'string';

function toolsProblem(output: unknown, p: ProviderToolSchema, compile: Validator): string | null {
  const calls = isRecord(output) && 'tool_calls' in output ? output.tool_calls : output;
  if (!Array.isArray(calls) || calls.length === 0 || !calls.every((c) => isRecord(c) && isCall(c.function)))
    return `OpenAI did not return a valid-looking tools response: ${shown(calls)}`;
  if (!p.tools) return 'No tools configured in provider, but output contains tool calls';
  const functions = p.tools.filter((t) => t.type === 'function' && 'function' in t).map((t) => t.function);
  for (const c of calls as { function: { name: string; arguments: string } }[]) {
    const problem = callProblem(c.function, functions, compile);
    if (problem) return problem;
  }
  return null;
}

function functionProblem(output: unknown, p: ProviderToolSchema, compile: Validator): string | null {
  // promptfoo checks a function call through the provider: only its Chat Completions provider can.
  if (p.api !== 'chat') return 'Provider does not have functionality for checking function call.';
  const call = isRecord(output) && 'function_call' in output ? output.function_call : output;
  if (!isCall(call)) return `OpenAI did not return a valid-looking function call: ${shown(call)}`;
  return callProblem(call, p.functions, compile);
}

export async function runToolCall(
  config: ToolCallConfig,
  c: EvalCase,
  answer: CandidateAnswer,
): Promise<EvaluatorResult> {
  const base = { name: config.name, type: config.type, weight: config.weight, gating_violations: [] };
  const error = (message: string) => errorResult(config, message);
  const provider =
    config.providers.find((p) => p.target === c.target) ??
    (c.target === null ? config.providers[0] : undefined);
  if (!provider)
    return error(
      `the case's target '${c.target ?? ''}' is none of the suite's providers: its tools are unknown`,
    );
  // The object the target answered (its tool calls), or what a transform made of it; else the text.
  const output = answer.value !== undefined ? answer.value : answer.text;
  let problem: string | null;
  try {
    shared ??= validator();
    const compile = await shared;
    problem = (config.kind === 'tools' ? toolsProblem : functionProblem)(output, provider, compile);
  } catch (err) {
    // A schema that does not compile, or a pattern or array the bounded checks refuse.
    return error((err as Error).message);
  }
  const what = config.kind === 'tools' ? 'tool calls' : 'function call';
  return problem === null
    ? { ...base, score: 1, verdict: 'pass', hits: [`valid ${what}`], misses: [], reasoning: null }
    : { ...base, score: 0, verdict: 'fail', hits: [], misses: [problem], reasoning: null };
}
