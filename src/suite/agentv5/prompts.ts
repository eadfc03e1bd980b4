import path from 'node:path';
import { type DiagnosticSink } from '../../core/diagnostics.js';
import { type Workspace } from '../../core/workspace.js';
import { readReferencedFile } from '../../core/user-file.js';
import { type SourceDocument } from '../../core/yaml-source.js';
import { renderNunjucks, usesNunjucks } from './nunjucks-render.js';
import { isRecord } from '../../core/is-record.js';

/**
 * AgentV 5 / promptfoo `prompts`: each test runs once per prompt. A prompt is a template string,
 * a chat message list, or a file holding either; `{{ var }}` is filled from the test's vars.
 */
export interface PromptDefinition {
  /** Given, else `prompt-N`; a test's id gets `__prompt_<id>` when a suite has several prompts. */
  id: string;
  /** A template string, or chat messages whose string contents are templates. */
  input: string | Record<string, unknown>[];
  /** A `.json` prompt file that is JSON only once rendered (Nunjucks loops): parsed after rendering. */
  chatJson?: true;
}

const isChat = (v: unknown): v is Record<string, unknown>[] =>
  Array.isArray(v) && v.length > 0 && v.every((m) => isRecord(m) && typeof m.role === 'string');

const VAR = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;
const WHOLE_VAR = /^\s*\{\{\s*([A-Za-z_][\w.]*)\s*\}\}\s*$/;

function lookup(vars: Record<string, unknown>, name: string): unknown {
  let v: unknown = vars;
  for (const k of name.split('.')) v = isRecord(v) ? v[k] : undefined;
  return v;
}

/** `{{ name }}` and `{{ a.b }}` from the vars; objects as JSON; an unknown name is left as written. */
function renderVars(template: string, vars: Record<string, unknown>): string {
  return template.replace(VAR, (whole, name: string) => {
    const v = lookup(vars, name);
    if (v === undefined) return whole;
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/**
 * A template that is one `{{ var }}` and nothing else stands for the var's value as it is (a
 * message list stays a list), as AgentV interpolates it; anything else renders to a string.
 */
function renderValue(template: string, vars: Record<string, unknown>): unknown {
  const whole = WHOLE_VAR.exec(template);
  if (whole) return lookup(vars, whole[1]!);
  return renderVars(template, vars);
}

/** The var names a template uses that the test does not define. */
export function missingVars(template: string, vars: Record<string, unknown>): string[] {
  return [...template.matchAll(VAR)].map((m) => m[1]!).filter((n) => lookup(vars, n) === undefined);
}

interface PromptContext {
  doc: SourceDocument;
  sink: DiagnosticSink;
  ws: Workspace;
  dir: string;
  key: string;
}

/** The suite's prompts, or null when it has none (the test's `vars.input` is its input then). */
export function parsePrompts(value: unknown, ctx: PromptContext): PromptDefinition[] | null {
  if (value === undefined || value === null) return null;
  const entries = Array.isArray(value) && !isChat(value) ? value : [value];
  const out: PromptDefinition[] = [];
  entries.forEach((entry, i) => {
    const p = parsePrompt(entry, i, ctx);
    if (Array.isArray(p)) out.push(...p);
    else if (p) out.push(p);
  });
  return out;
}

type Parsed = PromptDefinition | PromptDefinition[] | undefined;

function parsePrompt(entry: unknown, i: number, ctx: PromptContext): Parsed {
  const at = [ctx.key, i];
  const fallback = `prompt-${i + 1}`;
  const bad = (message: string) => {
    ctx.sink.error(ctx.doc.locate(at), 'prompt', message, 'suite');
    return undefined;
  };
  if (typeof entry === 'string') {
    if (entry.startsWith('file://')) return fromFile(entry.slice('file://'.length), fallback, ctx, at);
    return { id: fallback, input: entry };
  }
  if (isChat(entry)) return { id: fallback, input: entry };
  if (!isRecord(entry))
    return bad('a prompt is a template string, a chat message list, or {id, prompt|raw|file|messages}');
  // promptfoo: `{id: 'file://…', label}` (the id is the file), `{raw, label}`; the label names it.
  const label = typeof entry.label === 'string' ? entry.label : null;
  if (typeof entry.id === 'string' && entry.id.startsWith('file://'))
    return fromFile(entry.id.slice('file://'.length), label ?? fallback, ctx, at);
  const id = typeof entry.id === 'string' ? entry.id : (label ?? fallback);
  if (typeof entry.role === 'string') return { id, input: [entry] };
  if (typeof entry.file === 'string') return fromFile(entry.file.replace(/^file:\/\//, ''), id, ctx, at);
  const input = entry.prompt ?? entry.raw ?? entry.messages;
  if (typeof input === 'string' || isChat(input)) return { id, input };
  return bad('a prompt object needs `prompt`, `raw`, `messages` or `file`');
}

function fromFile(ref: string, id: string, ctx: PromptContext, at: (string | number)[]): Parsed {
  const r = readReferencedFile(ctx.ws, ref, ctx.dir, (rule, message) =>
    ctx.sink.error(ctx.doc.locate(at), rule, message, 'suite'),
  );
  if (!r) return undefined;
  const text = r.text;
  if (path.extname(r.absPath).toLowerCase() === '.json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      // A JSON chat template with Nunjucks in it is JSON once rendered.
      if (usesNunjucks(text)) return { id, input: text, chatJson: true };
      ctx.sink.error(ctx.doc.locate(at), 'json', `'${ref}': ${(err as Error).message}`, 'suite');
      return undefined;
    }
    if (!isChat(parsed) && typeof parsed !== 'string') {
      ctx.sink.error(
        ctx.doc.locate(at),
        'prompt',
        `'${ref}' must hold a chat message list or a string`,
        'suite',
      );
      return undefined;
    }
    return { id, input: parsed };
  }
  // promptfoo: a text prompts file holds several prompts separated by a line of `---`.
  const parts = path.extname(r.absPath).toLowerCase() === '.txt' ? text.split(/^---[ \t]*$/m) : [text];
  const prompts = parts.map((p) => p.trim()).filter((p) => p !== '');
  if (prompts.length <= 1) return { id, input: prompts[0] ?? text };
  return prompts.map((input, k) => ({ id: `${id}-${k + 1}`, input }));
}

/** A template that is code (Nunjucks) where templates are data (the judge stage's head cases). */
class TemplateAsDataError extends Error {
  override name = 'TemplateAsDataError';
}

/**
 * A string template with the vars: Nunjucks when it uses more than `{{ var }}` (refused where
 * templates are data), else the plain `{{ var }}` fill. Errors are thrown with their reason.
 */
export function renderText(template: string, vars: Record<string, unknown>, asData: boolean): string {
  if (!usesNunjucks(template)) return renderVars(template, vars);
  if (asData)
    throw new TemplateAsDataError(
      "it is a Nunjucks template, the pull request's code: the judge stage does not render it with the workflow's credentials",
    );
  return renderNunjucks(template, vars);
}

/** promptfoo reads a rendered prompt that is a JSON list of chat messages as those messages. */
function chatOrText(text: string): unknown {
  if (!text.trimStart().startsWith('[')) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    return isChat(parsed) ? parsed : text;
  } catch {
    return text;
  }
}

/** A prompt with a test's vars: message-shaped values as they are, strings rendered. */
export function renderPrompt(p: PromptDefinition, vars: Record<string, unknown>, asData = false): unknown {
  if (typeof p.input === 'string') {
    if (!usesNunjucks(p.input)) return renderValue(p.input, vars);
    return chatOrText(renderText(p.input, vars, asData));
  }
  return p.input.map((m) =>
    typeof m.content === 'string' ? { ...m, content: renderText(m.content, vars, asData) } : m,
  );
}
