import path from 'node:path';
import { readReferencedFile } from '../../core/user-file.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { type CodeSource, type EvaluatorConfig } from '../types.js';
import { type Base } from './assertion-checks.js';
import { type AssertionContext } from './tests-assertions.js';

/**
 * promptfoo's assertion types that run the suite's code or ask a model (`javascript`, `python`,
 * transforms, ...): their names and shapes mapped onto the internal evaluators. How they grade
 * lives in src/evaluators/ (and their prompts in src/judge/); this file only reads the config.
 */

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The test an assertion belongs to, as promptfoo hands it to code (`context.vars`, `context.test`). */
export interface PromptfooTest {
  vars: Record<string, unknown>;
  test: Record<string, unknown>;
  /** The test's `options.transform`, else `defaultTest`'s: applied before every assertion. */
  transform: CodeSource | null;
}

/** The types this file maps (with `not-` in front where promptfoo allows it). */
const CODE_TYPES = new Set(['javascript', 'python']);

export function isPromptfooType(type: string): boolean {
  return CODE_TYPES.has(type);
}

/**
 * What a test's assertions share: its vars and the test for code, and its `options.transform`
 * (the test's own, else `defaultTest`'s, as promptfoo merges options), read where it is written.
 */
export function promptfooTest(
  t: Record<string, unknown>,
  at: PathSegment[],
  defaults: Record<string, unknown>,
  defaultsAt: PathSegment[],
  vars: Record<string, unknown>,
  testCtx: AssertionContext,
  suiteCtx: AssertionContext,
): PromptfooTest {
  const own = isRecord(t.options) ? t.options.transform : undefined;
  const inherited = isRecord(defaults.options) ? defaults.options.transform : undefined;
  const transform =
    own !== undefined
      ? transformSource(own, [...at, 'options', 'transform'], testCtx)
      : inherited !== undefined
        ? transformSource(inherited, [...defaultsAt, 'options', 'transform'], suiteCtx)
        : undefined;
  return { vars, test: { ...t, vars }, transform: transform ?? null };
}

/** Every assertion's transforms and code context, spread with its base (see `assertionBase`). */
export function codeFields(
  item: Record<string, unknown>,
  at: PathSegment[],
  ctx: AssertionContext,
): Pick<Base, 'transforms' | 'codeContext'> {
  const pf = ctx.promptfoo;
  if (!pf) return {};
  const transforms: CodeSource[] = pf.transform ? [pf.transform] : [];
  if (item.transform !== undefined) {
    const s = transformSource(item.transform, [...at, 'transform'], ctx);
    if (s) transforms.push(s);
  }
  return {
    codeContext: { vars: pf.vars, test: pf.test, cwd: ctx.dir },
    ...(transforms.length > 0 ? { transforms } : {}),
  };
}

/** A transform: inline JavaScript, or `file://x.js[:fn]` / `file://x.py[:fn]`. */
function transformSource(value: unknown, at: PathSegment[], ctx: AssertionContext): CodeSource | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    ctx.sink.error(
      ctx.doc.locate(at),
      'type',
      '`transform` is JavaScript code or a file:// script',
      ctx.subject,
    );
    return undefined;
  }
  if (!value.startsWith('file://')) return { language: 'javascript', code: value, file: null };
  return fileSource(value, null, at, ctx);
}

/** `file://path[:fn]`: the script read through the workspace (inside it, bounded), its language by extension. */
function fileSource(
  ref: string,
  language: 'javascript' | 'python' | null,
  at: PathSegment[],
  ctx: AssertionContext,
): CodeSource | undefined {
  const fail = (rule: string, message: string) => {
    ctx.sink.error(ctx.doc.locate(at), rule, message, ctx.subject);
    return undefined;
  };
  const m = /^file:\/\/(.+?\.(?:js|cjs|mjs|py|ts|cts|mts))(?::([A-Za-z_$][\w$]*))?$/.exec(ref.trim());
  if (!m)
    return fail(
      'value',
      `'${ref}': a script is file://<path>.js or .py, with :<function> after it if not the default`,
    );
  const ext = path.extname(m[1]!);
  if (/^\.[cm]?ts$/.test(ext))
    return fail(
      'unsupported-file',
      `'${ref}': TypeScript files are not run; compile it to .js (or .mjs) and point to that`,
    );
  const found: 'javascript' | 'python' = ext === '.py' ? 'python' : 'javascript';
  if (language && found !== language)
    return fail(
      'value',
      `'${ref}': a ${language} assertion runs a ${language === 'python' ? '.py' : '.js'} file`,
    );
  const file = readReferencedFile(
    ctx.ws,
    m[1]!,
    ctx.dir,
    (rule, message) => ctx.sink.error(ctx.doc.locate(at), rule, message, ctx.subject),
    ref,
  );
  if (!file) return undefined;
  return {
    language: found,
    code: null,
    file: { path: ctx.ws.display(file.absPath), absPath: file.absPath, text: file.text, fn: m[2] ?? null },
  };
}

/** A promptfoo type this file maps, read into its evaluator; undefined after an error is reported. */
export function promptfooAssertion(
  type: string,
  inverse: boolean,
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  // `not-` is each type's own rule here (promptfoo keeps the code's score), never the generic negation.
  const { negate, ...own } = base;
  const flip = inverse || negate === true;
  return codeAssertion(type as 'javascript' | 'python', flip, item, at, own, ctx);
}

function codeAssertion(
  language: 'javascript' | 'python',
  inverse: boolean,
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const { doc, sink, subject } = ctx;
  const v = item.value;
  if (typeof v !== 'string' || v.trim() === '') {
    sink.error(
      doc.locate([...at, 'value']),
      'value',
      `\`${language}\` needs \`value\`: code, or file://<script>${language === 'python' ? '.py' : '.js'}`,
      subject,
    );
    return undefined;
  }
  const t = item.threshold;
  if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t))) {
    sink.error(doc.locate([...at, 'threshold']), 'threshold', '`threshold` is a number', subject);
    return undefined;
  }
  const source = v.trim().startsWith('file://')
    ? fileSource(v, language, [...at, 'value'], ctx)
    : { language, code: ctx.render(v), file: null };
  if (!source) return undefined;
  return {
    ...base,
    type: 'code_assertion',
    source,
    inverse,
    threshold: typeof t === 'number' ? t : null,
    config: isRecord(item.config) ? item.config : null,
    codeContext: base.codeContext ?? { vars: {}, test: {}, cwd: ctx.dir },
  };
}
