import path from 'node:path';
import { sha256Hex } from '../core/sha256.js';
import { type AggregatorConfig, type EvalCase, type EvaluatorConfig, type Message } from './types.js';

/**
 * JSON with every object's keys sorted, so equal values always give equal text whatever order
 * the loader built them in. `undefined` members are dropped, as JSON.stringify drops them.
 */
export function canonicalJson(value: unknown): string {
  return appendCanonical('', value);
}

// This runs for every case of every run (10,000-case suites): one string grown by appends (V8
// keeps them as ropes until hashed), keys sorted only when they are not in order already (the
// definitions below are built in order), no per-level temporary strings or arrays.
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
  const keys = sortedKeys(record);
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

/**
 * The keys in the order `Array.prototype.sort` gives strings (UTF-16 code units). A few keys out
 * of order are put in place where they are: the built-in sort sets up its own work arrays on
 * every call, which for objects of a handful of keys costs more than the sorting.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
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

function aggregatorDefinition(a: AggregatorConfig, root: string): unknown {
  switch (a.type) {
    case 'weighted_average':
    case 'all_or_nothing':
      return a;
    case 'code_judge':
      return { type: a.type, command: a.command, cwd: relativeDir(root, a.cwd) };
    case 'llm_judge':
      return { type: a.type, prompt: a.prompt?.template ?? null };
  }
}

/** What decides an evaluator's grade; positions and prompt file paths are left out, prompt text kept. */
function evaluatorDefinition(e: EvaluatorConfig, root: string): unknown {
  // AgentV 5's knobs are left out (undefined) when unset, so v2 cases keep their hashes.
  const base = {
    type: e.type,
    name: e.name,
    weight: e.weight,
    negate: e.negate,
    required: e.required,
    min_score: e.minScore,
  };
  switch (e.type) {
    case 'llm_judge':
      return {
        ...base,
        rubrics: e.rubrics,
        prompt: e.prompt?.template ?? null,
        // A prompt script: its command (the script by its workspace path) and config; undefined (left out) otherwise.
        prompt_script: e.promptScript && {
          command: [
            ...e.promptScript.command.slice(0, -1),
            relativeDir(root, e.promptScript.command.at(-1)!),
          ],
          config: e.promptScript.config,
        },
      };
    case 'code_judge':
      return { ...base, command: e.command, cwd: relativeDir(root, e.cwd), config: e.config };
    case 'composite':
      return {
        ...base,
        children: e.children.map((c) => evaluatorDefinition(c, root)),
        aggregator: aggregatorDefinition(e.aggregator, root),
      };
    default: {
      // Deterministic evaluators: their typed config is all that decides the grade.
      const { pos: _pos, minScore: _m, ...config } = e;
      return config;
    }
  }
}

/**
 * A case's `definition_hash`: the first 16 hex of sha256 over the canonical JSON
 * of what decides its grade. Two runs whose hashes differ graded different things, so their
 * verdicts are not comparable. `root` is the workspace root, against which directories are made
 * relative so the hash is the same in every checkout.
 */
export function definitionHash(c: EvalCase, targetName: string | null, root: string): string {
  // Keys in sorted order (see messageDefinition).
  const definition = {
    evaluators: c.evaluators.map((e) => evaluatorDefinition(e, root)),
    expected_outcome: c.expectedOutcome,
    expected_output: c.expectedMessages.map(messageDefinition),
    input: c.inputMessages.map(messageDefinition),
    reference_answer: c.referenceAnswer ?? undefined,
    scoring: c.scoring,
    target: targetName,
  };
  return sha256Hex(canonicalJson(definition)).slice(0, 16);
}
