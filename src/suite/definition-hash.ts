import { createHash } from 'node:crypto';
import path from 'node:path';
import { type AggregatorConfig, type EvalCase, type EvaluatorConfig, type Message } from './types.js';

/**
 * JSON with every object's keys sorted, so equal values always give equal text whatever order
 * the loader built them in. `undefined` members are dropped, as JSON.stringify drops them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Plain loops and string appends: this runs for every case of every run (10,000-case suites).
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++)
      out += `${i ? ',' : ''}${value[i] === undefined ? 'null' : canonicalJson(value[i])}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** A message as it reaches a target: attachments by their workspace-relative path and text. */
const messageDefinition = (m: Message) => ({
  role: m.role,
  parts: m.parts.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : { type: 'file', path: p.file.path, text: p.file.text, guideline: p.file.guideline },
  ),
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
  const definition = {
    input: c.inputMessages.map(messageDefinition),
    expected_outcome: c.expectedOutcome,
    expected_output: c.expectedMessages.map(messageDefinition),
    reference_answer: c.referenceAnswer ?? undefined,
    evaluators: c.evaluators.map((e) => evaluatorDefinition(e, root)),
    target: targetName,
    scoring: c.scoring,
  };
  return createHash('sha256').update(canonicalJson(definition)).digest('hex').slice(0, 16);
}
