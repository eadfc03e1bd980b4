import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readReferencedFile } from '../../core/user-file.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { type Message } from '../types.js';
import { usesNunjucks } from './nunjucks-render.js';
import { missingVars, type PromptDefinition, renderPrompt } from './prompts.js';
import { type TestsFile } from './tests-files.js';

// What a test is asked: its vars (a `file://` var read as data) and the prompt filled with them.

/** What the v2 loader lends: message lists with file parts, read and located the v2 way. */
export interface MessageReader {
  loadMessages(value: unknown, at: PathSegment[], defaultRole: string, subject: string): Message[];
}

/** What reading a test's inputs needs of the suite being loaded. */
export interface InputEnv {
  reader: MessageReader;
  /** The file the test is in: its sink, its document, its workspace. */
  f: TestsFile;
  /** The folder `file://` references resolve from. */
  dir: string;
}

/**
 * promptfoo's `file://` vars: the file's text (trimmed), a YAML file as its JSON; read through
 * the checkout reader. A script (`.js`, `.py`, ...) would run to produce the value: refused by name.
 */
export function fileVars(
  vars: Record<string, unknown>,
  at: PathSegment[],
  subject: string,
  env: InputEnv,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...vars };
  for (const [k, v] of Object.entries(vars)) {
    if (typeof v !== 'string' || !v.startsWith('file://')) continue;
    const fail = (rule: string, message: string) =>
      env.f.sink.error(env.f.doc.locate(at), rule, `var '${k}': ${message}`, subject);
    const ref = v.slice('file://'.length);
    const ext = path.extname(ref.split(':')[0]!).toLowerCase();
    if (/^\.(js|cjs|mjs|ts|py)$/.test(ext)) {
      fail(
        'unsupported-var-file',
        `'${v}' is a script that produces the value; rubric-eval reads files as data only`,
      );
      continue;
    }
    const read = readReferencedFile(env.f.ws, ref, env.dir, fail, v);
    if (!read) continue;
    if (ext !== '.yaml' && ext !== '.yml') {
      out[k] = read.text.trim();
      continue;
    }
    try {
      out[k] = JSON.stringify(parseYaml(read.text));
    } catch (err) {
      fail('yaml', `'${v}': ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return out;
}

/** A prompt with the test's vars; without prompts, the test's `vars.input` is its input. */
export function inputOf(
  prompt: PromptDefinition | null,
  vars: Record<string, unknown>,
  at: PathSegment[],
  subject: string,
  env: InputEnv,
): Message[] {
  const template = prompt
    ? typeof prompt.input === 'string'
      ? prompt.input
      : JSON.stringify(prompt.input)
    : '{{ input }}';
  // Nunjucks renders a name the test does not define as empty, as promptfoo does; `{{ var }}` alone is checked.
  const missing = usesNunjucks(template) ? [] : missingVars(template, vars);
  if (missing.length > 0) {
    env.f.sink.error(
      env.f.doc.locate([...at, 'vars']),
      'missing-var',
      `the prompt${prompt ? ` '${prompt.id}'` : ''} uses ${missing.map((m) => `{{ ${m} }}`).join(', ')}, which neither the test nor \`default_test\` defines in \`vars\``,
      subject,
    );
    return [];
  }
  let value: unknown;
  try {
    value = prompt ? renderPrompt(prompt, vars, env.f.ws.templatesAsData) : vars.input;
  } catch (err) {
    env.f.sink.error(
      env.f.doc.locate([...at, 'vars']),
      'template',
      `the prompt${prompt ? ` '${prompt.id}'` : ''} does not render: ${(err as Error).message}`,
      subject,
    );
    return [];
  }
  // Where a var handed over a message list, positions point into the test's vars.
  const whole = /^\s*\{\{\s*(\w+)\s*\}\}\s*$/.exec(template);
  return env.reader.loadMessages(value, [...at, 'vars', ...(whole ? [whole[1]!] : [])], 'user', subject);
}
