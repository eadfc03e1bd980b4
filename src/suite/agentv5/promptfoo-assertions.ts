import path from 'node:path';
import { readReferencedFile } from '../../core/user-file.js';
import { type PathSegment } from '../../core/yaml-source.js';
import {
  type CodeSource,
  type EvaluatorConfig,
  MODEL_GRADED_KINDS,
  type ModelGradedConfig,
} from '../types.js';
import { type AssertionContext, type Base, type PromptfooTest } from './assertion-context.js';
import { numberAt, reportAt, withoutNegation } from './assertion-base.js';
import { isToolCallType, toolCallAssertion } from './tool-call-assertion.js';
import { rubricPromptProblem } from './rubric-prompt-check.js';
import { isRecord } from '../../core/is-record.js';

/**
 * promptfoo's assertion types that run the suite's code or ask a model (`javascript`, `python`,
 * transforms, ...): their names and shapes mapped onto the internal evaluators. How they grade
 * lives in src/evaluators/ (and their prompts in src/judge/); this file only reads the config.
 */

/** The test an assertion belongs to, as promptfoo hands it to code (`context.vars`, `context.test`). */
/** The types this file maps (with `not-` in front where promptfoo allows it). */
const CODE_TYPES = new Set(['javascript', 'python']);
const SIMILAR_TYPES = new Set(['similar', 'similar:cosine']);
/** The model-graded kinds whose `not-` form promptfoo 0.121 grades (1 - score, pass swapped); it ignores the others'. */
const INVERTIBLE = new Set<string>(['g-eval', 'conversation-relevance']);
/** promptfoo's name for each model-graded kind (`model-graded-factuality` is factuality's other name). */
const GRADED_TYPES: Record<string, ModelGradedConfig['kind']> = {
  ...Object.fromEntries(MODEL_GRADED_KINDS.map((k) => [k, k])),
  'model-graded-factuality': 'factuality',
};

export function isPromptfooType(type: string): boolean {
  return (
    CODE_TYPES.has(type) ||
    SIMILAR_TYPES.has(type) ||
    GRADED_TYPES[type] !== undefined ||
    isToolCallType(type)
  );
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
  const options = {
    ...(isRecord(defaults.options) ? defaults.options : {}),
    ...(isRecord(t.options) ? t.options : {}),
  };
  return { vars, test: { ...t, vars }, transform: transform ?? null, options };
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
function transformSource(
  value: unknown,
  at: PathSegment[],
  ctx: AssertionContext,
  key = 'transform',
): CodeSource | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    return reportAt(ctx, at, 'type', `\`${key}\` is JavaScript code or a file:// script`);
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
  const fail = (rule: string, message: string) => reportAt(ctx, at, rule, message);
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
    (rule, message) => reportAt(ctx, at, rule, message),
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
  const { negated, rest: own } = withoutNegation(base);
  const flip = inverse || negated;
  if (SIMILAR_TYPES.has(type)) return similar(flip, item, at, own, ctx);
  if (isToolCallType(type)) return toolCallAssertion(type, flip, at, own, ctx);
  const kind = GRADED_TYPES[type];
  if (kind) {
    if (flip && !INVERTIBLE.has(kind)) {
      ctx.sink.error(
        ctx.doc.locateKey([...at, 'type']),
        'unsupported-assertion',
        `'not-${type}' is not run (promptfoo ignores \`not-\` on ${type}); grade with ${type} and a lower threshold, or an llm-rubric`,
        ctx.subject,
      );
      return undefined;
    }
    const config = modelGraded(kind, item, at, own, ctx);
    if (config?.type === 'model_graded' && flip) config.inverse = true;
    return config;
  }
  return codeAssertion(type as 'javascript' | 'python', flip, item, at, own, ctx);
}

/** promptfoo's thresholds are any finite number. */
const A_NUMBER = { range: 'finite', message: '`threshold` is a number' } as const;

/** A `threshold` as written, else the type's default; undefined after a reported error. */
function thresholdOf(
  item: Record<string, unknown>,
  at: PathSegment[],
  ctx: AssertionContext,
  fallback: number,
): number | undefined {
  return numberAt(item.threshold, [...at, 'threshold'], ctx, { fallback, ...A_NUMBER });
}

/** `similar`: a value or a list of them, each rendered with the test's vars. */
function similar(
  inverse: boolean,
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const v = item.value;
  const values = Array.isArray(v) ? v : [v];
  if (values.length === 0 || values.some((x) => typeof x !== 'string' || x.trim() === '')) {
    return reportAt(
      ctx,
      [...at, 'value'],
      'value',
      '`similar` needs `value`: the expected text, or a list of texts (it passes when any is close enough)',
    );
  }
  const threshold = thresholdOf(item, at, ctx, 0.75);
  if (threshold === undefined) return undefined;
  return { ...base, type: 'similarity', values: (values as string[]).map(ctx.render), threshold, inverse };
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
  const threshold = numberAt(item.threshold, [...at, 'threshold'], ctx, { fallback: null, ...A_NUMBER });
  if (threshold === undefined) return undefined;
  const source = v.trim().startsWith('file://')
    ? fileSource(v, language, [...at, 'value'], ctx)
    : { language, code: ctx.render(v), file: null };
  if (!source) return undefined;
  return {
    ...base,
    type: 'code_assertion',
    source,
    inverse,
    threshold,
    config: isRecord(item.config) ? item.config : null,
    codeContext: base.codeContext ?? { vars: {}, test: {}, cwd: ctx.dir },
  };
}

/** promptfoo 0.121's default threshold per kind (`assertion.threshold ?? default`: 0 is kept). */
const DEFAULT_THRESHOLD: Record<ModelGradedConfig['kind'], number> = {
  factuality: 0,
  'model-graded-closedqa': 0,
  'g-eval': 0.7,
  'answer-relevance': 0,
  'context-faithfulness': 0,
  'context-relevance': 0,
  'context-recall': 0,
  'conversation-relevance': 0.5,
};

/** Kinds whose value is required (the reference or the criteria), and the vars each reads. */
const NEEDS_VALUE = new Set(['factuality', 'model-graded-closedqa', 'g-eval', 'context-recall']);
const NEEDS_QUERY = new Set(['context-faithfulness', 'context-relevance']);

const FACTUALITY_KEYS = {
  A: 'subset',
  B: 'superset',
  C: 'agree',
  D: 'disagree',
  E: 'differButFactual',
} as const;

function modelGraded(
  kind: ModelGradedConfig['kind'],
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const { doc, sink, subject } = ctx;
  const fail = (where: PathSegment[], rule: string, message: string) => {
    sink.error(doc.locate([...at, ...where]), rule, message, subject);
    return undefined;
  };
  const v = item.value;
  const values = (Array.isArray(v) && kind === 'g-eval' ? v : v === undefined ? [] : [v]) as unknown[];
  if (values.some((x) => typeof x !== 'string') || (NEEDS_VALUE.has(kind) && values.length === 0))
    return fail(
      ['value'],
      'value',
      `\`${kind}\` needs \`value\`: ${kind === 'g-eval' ? 'the criteria (a text or a list)' : kind.startsWith('context') || kind === 'factuality' ? 'the reference answer' : 'the criterion'}`,
    );
  const vars = ctx.promptfoo?.vars ?? {};
  if (NEEDS_QUERY.has(kind) && typeof vars.query !== 'string')
    return fail([], 'missing-var', `\`${kind}\` needs a \`query\` variable in the test (the user question)`);
  const contextTransform =
    item.contextTransform === undefined
      ? undefined
      : transformSource(item.contextTransform, [...at, 'contextTransform'], ctx, 'contextTransform');
  if (item.contextTransform !== undefined && !contextTransform) return undefined;
  const context = vars.context;
  const hasContext =
    contextTransform !== undefined ||
    (typeof context === 'string' && context !== '') ||
    (Array.isArray(context) && context.length > 0 && context.every((x) => typeof x === 'string'));
  if (NEEDS_QUERY.has(kind) && !hasContext)
    return fail(
      [],
      'missing-var',
      `\`${kind}\` needs a \`context\` variable in the test (a text, or a list of texts)`,
    );
  const threshold = thresholdOf(item, at, ctx, DEFAULT_THRESHOLD[kind]);
  if (threshold === undefined) return undefined;
  const options = ctx.promptfoo?.options ?? {};
  const rubricPrompt = promptOf(item.rubricPrompt ?? options.rubricPrompt, kind, at, ctx);
  if (rubricPrompt === undefined) return undefined;
  const scores = isRecord(options.factuality) ? options.factuality : {};
  const factuality = Object.fromEntries(
    Object.entries(FACTUALITY_KEYS).map(([cat, key]) => [
      cat,
      typeof scores[key] === 'number' ? scores[key] : cat === 'D' ? 0 : 1,
    ]),
  ) as ModelGradedConfig['factuality'];
  const config = isRecord(item.config) ? item.config : {};
  const windowSize =
    typeof config.windowSize === 'number' && config.windowSize >= 1 ? Math.floor(config.windowSize) : 5;
  return {
    ...base,
    type: 'model_graded',
    kind,
    values: (values as string[]).map(ctx.render),
    threshold,
    rubricPrompt,
    factuality,
    windowSize,
    ...(contextTransform ? { contextTransform } : {}),
  };
}

/**
 * A suite's `rubricPrompt`: a text (or file:// to one), a chat as a list of messages, a list of
 * prompts one per step (context-faithfulness), or g-eval's `{steps, evaluate}`. Null when unset;
 * undefined after a reported error (one our placeholders cannot fill is refused: rubric-prompt-check.ts).
 */
function promptOf(
  value: unknown,
  kind: ModelGradedConfig['kind'] | 'llm-rubric',
  at: PathSegment[],
  ctx: AssertionContext,
): ModelGradedConfig['rubricPrompt'] | undefined {
  const p = readPrompt(value, kind, at, ctx);
  // llm-rubric's prompt of several steps is refused as such by `llmRubricPrompt`.
  const problem = p && (kind !== 'llm-rubric' || typeof p === 'string') ? rubricPromptProblem(p, kind) : null;
  if (!problem) return p;
  return reportAt(ctx, [...at, 'rubricPrompt'], 'rubric-prompt', problem);
}

function readPrompt(
  value: unknown,
  kind: ModelGradedConfig['kind'] | 'llm-rubric',
  at: PathSegment[],
  ctx: AssertionContext,
): ModelGradedConfig['rubricPrompt'] | undefined {
  if (value === undefined || value === null) return null;
  const text = (v: unknown): string | undefined => {
    if (typeof v === 'string') {
      if (!v.startsWith('file://')) return v;
      const file = readReferencedFile(
        ctx.ws,
        v.slice('file://'.length),
        ctx.dir,
        (rule, message) => reportAt(ctx, [...at, 'rubricPrompt'], rule, message),
        v,
      );
      return file?.text;
    }
    if (isRecord(v) && typeof v.content === 'string') return v.content;
    return undefined;
  };
  if (kind === 'g-eval' && isRecord(value)) {
    const out: Record<string, string> = {};
    for (const k of ['steps', 'evaluate']) {
      if (value[k] === undefined) continue;
      const t = text(value[k]);
      if (t === undefined) return undefined;
      out[k] = t;
    }
    return out;
  }
  if (Array.isArray(value)) {
    // A chat for one step (messages with a role), else one prompt per step.
    if (value.every((m) => isRecord(m) && typeof m.role === 'string')) return JSON.stringify(value);
    const list = value.map(text);
    return list.every((t) => t !== undefined) ? (list as string[]) : undefined;
  }
  const t = text(value);
  if (t === undefined)
    ctx.sink.error(
      ctx.doc.locate([...at, 'rubricPrompt']),
      'type',
      '`rubricPrompt` is a prompt text, file://, or a list of chat messages',
      ctx.subject,
    );
  return kind === 'g-eval' && t !== undefined ? { evaluate: t } : t;
}

/**
 * `llm-rubric`'s `rubricPrompt` (the assertion's, else the test's `options`): one prompt text (or
 * a chat, as JSON). Null when unset; undefined after a reported error.
 */
export function llmRubricPrompt(
  item: Record<string, unknown>,
  at: PathSegment[],
  ctx: AssertionContext,
): string | null | undefined {
  const given = item.rubricPrompt ?? ctx.promptfoo?.options.rubricPrompt;
  const p = promptOf(given, 'llm-rubric', at, ctx);
  if (p === undefined || p === null || typeof p === 'string') return p;
  return reportAt(
    ctx,
    [...at, 'rubricPrompt'],
    'type',
    "`llm-rubric`'s `rubricPrompt` is one prompt: a text, file://, or a list of chat messages",
  );
}
