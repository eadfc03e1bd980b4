import path from 'node:path';
import { DiagnosticSink, type Position } from '../../core/diagnostics.js';
import { readReferencedFile } from '../../core/user-file.js';
import { type PathSegment, parseYamlSource, type SourceDocument } from '../../core/yaml-source.js';
import { schemaExpansionProblem } from '../schema-expansion.js';
import { schemaPatternProblem } from '../schema-patterns.js';
import { type ProviderToolSchema } from '../types.js';
import { type TestsFile } from './tests-files.js';
import { isRecord } from '../../core/is-record.js';

/**
 * An OpenAI provider's `config.tools` and `config.functions` as promptfoo reads them: a list
 * written inline, or `file://` to a JSON or YAML file holding it (a list of such references is
 * one list), read through the checkout's reader. Each tool, function and `parameters` schema is
 * checked here, where it is written, so a tool the model cannot be given, or a schema a call
 * cannot be checked against, is a located error at `validate`, never a silent pass later.
 */

/** `config.tools` and `config.functions`, loaded: what is sent, and what the tool-call checks use. */
export type ProviderTools = Pick<ProviderToolSchema, 'tools' | 'functions'>;

/** A place to report at: the suite's provider config, or a line of a tools file. */
interface Where {
  doc: SourceDocument;
  sink: DiagnosticSink;
  at: PathSegment[];
}

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
const SCHEMA_ONES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];

/**
 * What makes a value no JSON Schema at all (ajv's strict compile, at grading time, checks the
 * rest): the first problem and where, else null.
 */
function schemaProblem(s: unknown, at: PathSegment[]): { at: PathSegment[]; message: string } | null {
  if (typeof s === 'boolean') return null;
  if (!isRecord(s)) return { at, message: 'a JSON Schema is a mapping' };
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  const bad = types.find((t) => typeof t !== 'string' || !JSON_TYPES.has(t));
  if (bad !== undefined)
    return {
      at: [...at, 'type'],
      message: `\`type\` ${JSON.stringify(bad)} is not a JSON type (${[...JSON_TYPES].join(', ')})`,
    };
  if (
    s.required !== undefined &&
    !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))
  )
    return { at: [...at, 'required'], message: '`required` is a list of property names' };
  if (s.enum !== undefined && !Array.isArray(s.enum))
    return { at: [...at, 'enum'], message: '`enum` is a list of values' };
  for (const k of SCHEMA_LISTS) {
    const v = s[k];
    if (v === undefined) continue;
    if (!Array.isArray(v)) return { at: [...at, k], message: `\`${k}\` is a list of schemas` };
    for (const [i, x] of v.entries()) {
      const p = schemaProblem(x, [...at, k, i]);
      if (p) return p;
    }
  }
  for (const k of SCHEMA_MAPS) {
    const v = s[k];
    if (v === undefined) continue;
    if (!isRecord(v)) return { at: [...at, k], message: `\`${k}\` maps names to schemas` };
    for (const [name, x] of Object.entries(v)) {
      const p = schemaProblem(x, [...at, k, name]);
      if (p) return p;
    }
  }
  for (const k of SCHEMA_ONES) {
    const v = s[k];
    if (v === undefined) continue;
    const p =
      k === 'items' && Array.isArray(v)
        ? schemaProblem({ prefixItems: v }, at)
        : schemaProblem(v, [...at, k]);
    if (p) return p;
  }
  return null;
}

/** Where a schema uses `format` (promptfoo checks it with ajv-formats; rubric-eval does not), else null. */
function formatAt(s: unknown, at: PathSegment[]): PathSegment[] | null {
  if (!isRecord(s)) return null;
  if (typeof s.format === 'string') return [...at, 'format'];
  const children: [unknown, PathSegment[]][] = [];
  for (const k of SCHEMA_LISTS)
    if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((x, i) => children.push([x, [...at, k, i]]));
  for (const k of SCHEMA_MAPS)
    if (isRecord(s[k])) for (const [n, x] of Object.entries(s[k])) children.push([x, [...at, k, n]]);
  for (const k of SCHEMA_ONES) if (s[k] !== undefined) children.push([s[k], [...at, k]]);
  for (const [x, where] of children) {
    const found = formatAt(x, where);
    if (found) return found;
  }
  return null;
}

/** One function definition (`{name, description?, parameters?}`): true when it may be used. */
function checkFunction(fn: unknown, w: Where, subject: string): boolean {
  const fail = (at: PathSegment[], message: string) => {
    w.sink.error(w.doc.locate(at), 'tool', message, subject);
    return false;
  };
  if (!isRecord(fn)) return fail(w.at, 'a function is a mapping with `name` and `parameters`');
  if (typeof fn.name !== 'string' || fn.name === '')
    return fail([...w.at, 'name'], 'a function needs `name`');
  if (fn.parameters === undefined) return true;
  const problem =
    schemaProblem(fn.parameters, [...w.at, 'parameters']) ??
    schemaPatternProblem(fn.parameters, [...w.at, 'parameters']) ??
    schemaExpansionProblem(fn.parameters, [...w.at, 'parameters']);
  if (problem)
    return fail(
      problem.at,
      `function '${fn.name}': \`parameters\` is not a usable JSON Schema: ${problem.message}`,
    );
  const format = formatAt(fn.parameters, [...w.at, 'parameters']);
  if (format)
    w.sink.warn(
      w.doc.locate(format),
      'format-unchecked',
      `function '${fn.name}': \`format\` is not checked by rubric-eval's tool-call checks (promptfoo checks it); a value of the wrong format passes here`,
      subject,
    );
  return true;
}

/** One tool: `{type: function, function: {...}}` checked; other types (web_search, ...) passed on as written. */
function checkTool(tool: unknown, w: Where, subject: string): boolean {
  if (!isRecord(tool) || typeof tool.type !== 'string') {
    w.sink.error(
      w.doc.locate(w.at),
      'tool',
      'a tool is a mapping with `type` (e.g. `type: function`)',
      subject,
    );
    return false;
  }
  if (tool.type !== 'function') return true;
  return checkFunction(tool.function, { ...w, at: [...w.at, 'function'] }, subject);
}

/**
 * Bounds on one list: OpenAI takes at most 128 tools (or functions) in a request, so a longer list
 * could never be sent; and files that name each other (20 references a file, 4 deep, is 160,000
 * reads) stop at 32 files read, far above a real config's one or few.
 */
export const MAX_TOOLS = 128;
export const MAX_TOOL_FILES = 32;

/** A `file://` list: its text through the checkout reader, parsed as JSON (`.json`) or YAML, with its own positions. */
function readListFile(
  ref: string,
  w: Where,
  dir: string,
  f: TestsFile,
  subject: string,
): (Where & { absPath: string }) | undefined {
  const fail = (rule: string, message: string) => {
    w.sink.error(w.doc.locate(w.at), rule, message, subject);
    return undefined;
  };
  const rel = ref.slice('file://'.length);
  const ext = path.extname(rel).toLowerCase();
  if (/^\.(js|cjs|mjs|ts|py)$/.test(ext) || /\.(js|cjs|mjs|ts|py):[\w$]+$/.test(rel))
    return fail(
      'unsupported-file',
      `'${ref}': tools made by a script are not run by rubric-eval; write them in a .json or .yaml file`,
    );
  if (!['.json', '.yaml', '.yml'].includes(ext))
    return fail('unsupported-file', `'${ref}': a tools file is .json, .yaml or .yml`);
  const file = readReferencedFile(f.ws, rel, dir, fail, ref);
  if (!file) return undefined;
  const display = f.ws.display(file.absPath);
  const sink = new DiagnosticSink(display);
  const top: Position = { line: 0, column: 0 };
  if (ext === '.json') {
    try {
      JSON.parse(file.text);
    } catch (err) {
      sink.error(top, 'json', `not valid JSON: ${(err as Error).message}`, subject);
      f.sink.items.push(...sink.items);
      return undefined;
    }
  }
  const doc = parseYamlSource(file.text, sink);
  if (!doc || sink.hasErrors) {
    if (!sink.hasErrors) sink.error(top, 'yaml', 'not valid YAML', subject);
    f.sink.items.push(...sink.items);
    return undefined;
  }
  return { doc, sink, at: [], absPath: file.absPath };
}

/**
 * A list key (`tools` or `functions`) of the provider's config, loaded and checked; undefined
 * after a reported error. The file's problems are reported in the file.
 */
function readList(
  value: unknown,
  key: 'tools' | 'functions',
  w: Where,
  f: TestsFile,
  subject: string,
): Record<string, unknown>[] | undefined {
  const dir = path.dirname(f.absPath);
  const items: { value: unknown; where: Where }[] = [];
  // Each file's problems carry its own name: moved into the suite's list once all are checked.
  const files: DiagnosticSink[] = [];
  const refuse = (where: Where, rule: string, message: string) => {
    where.sink.error(where.doc.locate(where.at), rule, message, subject);
    return false;
  };
  const keep = (x: unknown, where: Where): boolean => {
    if (items.length === MAX_TOOLS)
      return refuse(
        where,
        'too-many-tools',
        `\`${key}\` holds more than ${MAX_TOOLS}, the most OpenAI takes in one request`,
      );
    items.push({ value: x, where });
    return true;
  };
  // `chain`: the files on the way here, so a file that names itself (or an earlier one) is refused.
  const add = (v: unknown, where: Where, chain: readonly string[]): boolean => {
    if (typeof v === 'string' && v.startsWith('file://')) {
      if (files.length === MAX_TOOL_FILES)
        return refuse(
          where,
          'too-many-files',
          `'${v}': \`${key}\` reads more than ${MAX_TOOL_FILES} files in all; list the tools in fewer files`,
        );
      const file = readListFile(v, where, dir, f, subject);
      if (!file) return false;
      files.push(file.sink);
      const display = f.ws.display(file.absPath);
      if (chain.includes(display))
        return refuse(
          where,
          'include-loop',
          `'${v}' is read again on its own path: ${[...chain, display].join(' -> ')}`,
        );
      return add(file.doc.value, file, [...chain, display]);
    }
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) {
        const at = { ...where, at: [...where.at, i] };
        if (!(typeof x === 'string' && x.startsWith('file://') ? add(x, at, chain) : keep(x, at)))
          return false;
      }
      return true;
    }
    if (isRecord(v)) return keep(v, where);
    where.sink.error(
      where.doc.locate(where.at),
      'type',
      `\`${key}\` is a list of ${key === 'tools' ? 'tools' : 'function definitions'}, or file:// to a JSON or YAML file of them`,
      subject,
    );
    return false;
  };
  const added = add(value, w, [f.display]);
  const check = key === 'tools' ? checkTool : checkFunction;
  let ok = added;
  if (added) for (const { value: v, where } of items) ok = check(v, where, subject) && ok;
  for (const sink of files) f.sink.items.push(...sink.items);
  return ok ? (items.map((x) => x.value) as Record<string, unknown>[]) : undefined;
}

/**
 * `config.tools` and `config.functions` of a promptfoo OpenAI provider written at `at` in the
 * suite, loaded and checked; null when unset.
 */
export function readProviderTools(
  config: Record<string, unknown>,
  at: PathSegment[],
  f: TestsFile,
): ProviderTools {
  // A list that failed is reported (the suite does not run) and read as empty, so the assertions
  // that use it add no second error.
  const read = (key: 'tools' | 'functions') =>
    config[key] === undefined
      ? null
      : (readList(config[key], key, { doc: f.doc, sink: f.sink, at: [...at, 'config', key] }, f, 'suite') ??
        []);
  return { tools: read('tools'), functions: read('functions') };
}
