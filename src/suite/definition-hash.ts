import path from 'node:path';
import { fileDigest } from '../core/checkout-read.js';
import { sha256Hex } from '../core/sha256.js';
import { scriptFileArgs } from './script-files.js';
import { type RubricSet } from '../rubric/types.js';
import {
  type AggregatorConfig,
  type CodeSource,
  type EvalCase,
  type EvaluatorConfig,
  type Message,
} from './types.js';

/**
 * JSON with every object's keys sorted, so equal values always give equal text whatever order
 * the loader built them in. `undefined` members are dropped, as JSON.stringify drops them.
 */
export function canonicalJson(value: unknown): string {
  // This runs for every case of every run (10,000-case suites). The definitions below are built
  // with their keys in order, so most values are canonical already and the engine's own
  // JSON.stringify writes them; objects out of order are copied in order first. The few values
  // whose text JSON.stringify would write differently go the long way (`appendCanonical`).
  const ordered = inKeyOrder(value);
  return ordered === DIFFERENT ? appendCanonical('', value) : (JSON.stringify(ordered) ?? 'null');
}

const DIFFERENT = Symbol('written differently by JSON.stringify');
/** Keys JSON.stringify writes before all others (array indices), whatever order they were set in. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/**
 * `value` with every object's keys in sorted order (the same value when they already are), or
 * DIFFERENT when JSON.stringify would not write the canonical text for it: anything but plain
 * objects and arrays (a Date's `toJSON`, a boxed string), a `toJSON` member, a function or symbol
 * member (dropped there, `null` here), an index-like key (enumerated first) or `__proto__` (not
 * an own key once copied).
 */
function inKeyOrder(value: unknown): unknown {
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return DIFFERENT;
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return DIFFERENT;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = inKeyOrder(value[i]);
      if (item === DIFFERENT) return DIFFERENT;
      if (!Object.is(item, value[i])) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return DIFFERENT;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  // The members as written, once one of them had to be copied (each member is visited once).
  let members: unknown[] | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === '__proto__' || INDEX_KEY.test(key)) return DIFFERENT;
    if (i > 0 && keys[i - 1]! > key) sorted = false;
    const member = record[key];
    const v = inKeyOrder(member);
    if (v === DIFFERENT) return DIFFERENT;
    if (members) members.push(v);
    else if (!Object.is(v, member)) members = [...keys.slice(0, i).map((k) => record[k]), v];
  }
  if (sorted && !members) return value;
  // Rare: the definitions are built in order, so only a user's own objects get here.
  const order = keys.map((_, i) => i);
  if (!sorted) order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
  const out: Record<string, unknown> = {};
  for (const i of order) out[keys[i]!] = members ? members[i] : record[keys[i]!];
  return out;
}

/** The canonical text written piece by piece: for the values JSON.stringify cannot be given. */
function appendCanonical(out: string, value: unknown): string {
  if (value === null || typeof value !== 'object') return out + (JSON.stringify(value) ?? 'null');
  if (Array.isArray(value)) {
    out += '[';
    for (let i = 0; i < value.length; i++) {
      if (i) out += ',';
      out = value[i] === undefined ? out + 'null' : appendCanonical(out, value[i]);
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out += '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += first ? quotedKey(key) : ',' + quotedKey(key);
    first = false;
    out = appendCanonical(out + ':', v);
  }
  return out + '}';
}

const PLAIN_KEY = /^[A-Za-z0-9_-]*$/;
const quotedKey = (key: string) => (PLAIN_KEY.test(key) ? `"${key}"` : JSON.stringify(key));

/**
 * A message as it reaches a target: attachments by their workspace-relative path and text. Keys
 * are written in sorted order, which the canonical JSON would give anyway: it then has no sorting
 * to do for them.
 */
const messageDefinition = (m: Message) => ({
  parts: m.parts.map((p) =>
    p.type === 'text'
      ? { text: p.text, type: 'text' }
      : { guideline: p.file.guideline, path: p.file.path, text: p.file.text, type: 'file' },
  ),
  role: m.role,
  // Code judges see structured content and tool calls as written; left out (undefined) when absent,
  // so the hash of a case without them is what it was.
  structured: m.structured,
  tool_calls: m.toolCalls,
});

/** A working directory relative to the workspace: the same on every machine and checkout. */
const relativeDir = (root: string, dir: string) => path.relative(root, dir).split(path.sep).join('/');

/**
 * The content of every file a grader's command names (by the rule that checks they exist), by
 * workspace path: a rewritten script is a redefined grader, not a fixed case. Each file is read
 * once per plan. What the script itself imports or reads is not followed (README "Guarantees").
 */
export class ScriptDigests {
  private readonly digests = new Map<string, string | null>();

  constructor(private readonly root: string) {}

  of(command: string | readonly string[], cwd: string): Record<string, string | null> | undefined {
    const files = scriptFileArgs(command);
    if (files.length === 0) return undefined;
    const out: Record<string, string | null> = {};
    for (const file of files) {
      const abs = path.resolve(cwd, file);
      if (!this.digests.has(abs)) this.digests.set(abs, fileDigest(abs, MAX_SCRIPT_BYTES));
      out[relativeDir(this.root, abs)] = this.digests.get(abs)!;
    }
    return out;
  }
}

/** Scripts are small; a file larger than this is hashed by its first 64 MiB and its size. */
const MAX_SCRIPT_BYTES = 64 * 1024 * 1024;

function aggregatorDefinition(a: AggregatorConfig, root: string, scripts: ScriptDigests): unknown {
  switch (a.type) {
    case 'weighted_average':
    case 'all_or_nothing':
      return a;
    case 'code_judge':
      return {
        type: a.type,
        command: a.command,
        cwd: relativeDir(root, a.cwd),
        scripts: scripts.of(a.command, a.cwd),
      };
    case 'llm_judge':
      return { type: a.type, prompt: a.prompt?.template ?? null };
  }
}

/**
 * A rubric as it is hashed. Every definition below is built with its keys in sorted order: the
 * canonical text is then JSON.stringify's, with nothing to copy (the result is the same in any order).
 */
function rubricsDefinition(r: RubricSet | null): unknown {
  if (!r) return r;
  if (r.mode === 'checklist')
    return {
      items: r.items.map((i) => ({ id: i.id, outcome: i.outcome, required: i.required, weight: i.weight })),
      mode: r.mode,
    };
  return {
    items: r.items.map((i) => ({
      bands: i.bands.map((b) => ({ max: b.max, min: b.min, outcome: b.outcome })),
      id: i.id,
      outcome: i.outcome,
      requiredMinScore: i.requiredMinScore,
      weight: i.weight,
    })),
    mode: r.mode,
  };
}

/** Suite code as hashed: inline text, or a file by its workspace path and content (never its absolute path). */
const codeDefinition = (c: CodeSource) => ({
  code: c.code,
  file: c.file && { fn: c.file.fn, path: c.file.path, text: sha256Hex(c.file.text, 16) },
  language: c.language,
});

/** An evaluator's promptfoo transforms; undefined (left out) without any, so other hashes stay. */
const transformsDefinition = (e: EvaluatorConfig) => e.transforms?.map(codeDefinition);

/** The vars and test promptfoo code is given (`context`), as every such code reads them. */
const contextDefinition = (e: EvaluatorConfig) =>
  e.codeContext && { test: e.codeContext.test, vars: e.codeContext.vars };

/**
 * The test data an evaluator's grade reads besides the answer: its transforms' `context`, and for
 * promptfoo's model-graded kinds the vars they grade on (`context`, `query`, `_conversation`, what
 * a `contextTransform` or a `rubricPrompt` names). Undefined (left out) otherwise, so hashes stay.
 */
const readContext = (e: EvaluatorConfig) =>
  e.type === 'model_graded' || e.transforms?.length ? contextDefinition(e) : undefined;

/** What every evaluator has, in sorted key order (they sort after the keys of the kinds that spread them). */
const knobs = (e: EvaluatorConfig) => ({
  min_score: e.minScore,
  name: e.name,
  negate: e.negate,
  required: e.required,
  transforms: transformsDefinition(e),
  type: e.type,
  weight: e.weight,
});

/** What decides an evaluator's grade; positions and prompt file paths are left out, prompt text kept. */
function evaluatorDefinition(e: EvaluatorConfig, root: string, scripts: ScriptDigests): unknown {
  // AgentV 5's knobs are left out (undefined) when unset, so v2 cases keep their hashes.
  switch (e.type) {
    case 'llm_judge':
      return {
        context: readContext(e),
        min_score: e.minScore,
        name: e.name,
        negate: e.negate,
        prompt: e.prompt?.template ?? null,
        // A prompt script: its command (the script by its workspace path) and config; undefined (left out) otherwise.
        prompt_script: e.promptScript && {
          command: [
            ...e.promptScript.command.slice(0, -1),
            relativeDir(root, e.promptScript.command.at(-1)!),
          ],
          config: e.promptScript.config,
          scripts: scripts.of(e.promptScript.command, e.promptScript.cwd),
        },
        required: e.required,
        rubric_score: e.rubricScore,
        rubrics: rubricsDefinition(e.rubrics),
        // AgentV 5: the judge's stated score decides, not its checks.
        stated_score: e.statedScore,
        transforms: transformsDefinition(e),
        type: e.type,
        weight: e.weight,
      };
    case 'code_judge':
      return {
        command: e.command,
        config: e.config,
        context: readContext(e),
        cwd: relativeDir(root, e.cwd),
        min_score: e.minScore,
        name: e.name,
        negate: e.negate,
        required: e.required,
        scripts: scripts.of(e.command, e.cwd),
        transforms: transformsDefinition(e),
        type: e.type,
        weight: e.weight,
      };
    case 'code_assertion':
      return {
        config: e.config,
        context: contextDefinition(e),
        inverse: e.inverse,
        source: codeDefinition(e.source),
        threshold: e.threshold,
        ...knobs(e),
      };
    case 'composite':
      return {
        aggregator: aggregatorDefinition(e.aggregator, root, scripts),
        assert_set: e.assertSet,
        children: e.children.map((c) => evaluatorDefinition(c, root, scripts)),
        context: readContext(e),
        ...knobs(e),
      };
    default: {
      // Deterministic evaluators: their typed config is all that decides the grade.
      const { pos: _pos, minScore: _m, transforms: _t, codeContext: _c, assertionType: _a, ...config } = e;
      const ct = 'contextTransform' in config ? config.contextTransform : undefined;
      return {
        ...config,
        context: readContext(e),
        transforms: transformsDefinition(e),
        ...(ct ? { contextTransform: codeDefinition(ct) } : {}),
      };
    }
  }
}

/**
 * A comparison as hashed: max-score's parts by name path; their positions (`at`) follow from the
 * evaluators, which are hashed in order, so hashes from before positions were kept stay.
 */
function compareDefinition(c: NonNullable<EvalCase['compare']>): unknown {
  if (!c.maxScore) return c;
  return { ...c, maxScore: { ...c.maxScore, parts: c.maxScore.parts.map(({ at: _at, ...p }) => p) } };
}

/**
 * What `definition_hash` covers, by version: 2 added the content of grader scripts and the
 * target's definition. A results file of another version (or none: written before) hashed less,
 * so its cases compare as `redefined`, and the comparison says why once.
 */
export const DEFINITION_VERSION = 2;

/** The target that answers a case, as hashed: its name and what is written for it. */
export interface HashedTarget {
  name: string | null;
  /** Provider and settings as written (`${{ VAR }}` unresolved); null for recorded answers. */
  definition: Record<string, unknown> | null;
}

/**
 * A case's `definition_hash`: the first 16 hex of sha256 over the canonical JSON
 * of what decides its grade. Two runs whose hashes differ graded different things, so their
 * verdicts are not comparable. `root` is the workspace root, against which directories are made
 * relative so the hash is the same in every checkout. `scripts` reads each grader script once
 * across the cases of a plan.
 */
export function definitionHash(
  c: EvalCase,
  target: HashedTarget | string | null,
  root: string,
  scripts: ScriptDigests = new ScriptDigests(root),
): string {
  const t = typeof target === 'object' && target !== null ? target : { name: target, definition: null };
  // Keys in sorted order (see messageDefinition).
  const definition = {
    // The effect's paired test resamples by cluster (docs/effect.md): a PR that regroups cases moves the interval, so grading changed.
    cluster: c.cluster,
    // Which siblings a comparison weighs and how; undefined (left out) without one, so other hashes stay.
    compare: c.compare && compareDefinition(c.compare),
    evaluators: c.evaluators.map((e) => evaluatorDefinition(e, root, scripts)),
    expected_outcome: c.expectedOutcome,
    expected_output: c.expectedMessages.map(messageDefinition),
    input: c.inputMessages.map(messageDefinition),
    reference_answer: c.referenceAnswer ?? undefined,
    scoring: c.scoring,
    target: t.name,
    target_definition: t.definition,
    version: DEFINITION_VERSION,
  };
  return sha256Hex(canonicalJson(definition), 16);
}
