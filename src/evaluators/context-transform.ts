import { type ExecDeps } from '../exec/deps.js';
import { type EvalCase, type ModelGradedConfig } from '../suite/types.js';
import { outputValue, promptText, scriptCall } from './code-assertion.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { MAX_ANSWER_CHARS } from './judged-answer.js';
import { callScript } from './script-batch.js';

/**
 * promptfoo's `contextTransform` on the context-* assertions: the suite's code, given the
 * target's answer as it came (before any `transform`) and `{vars, prompt}`, returns the context
 * to grade against, a text or a list of texts; it takes the place of the `context` variable. It
 * runs as the suite's other code does (script-batch.ts), never in this process.
 */

export type TransformedContext = { ok: true; context: string | string[] } | { ok: false; error: string };

/** promptfoo's rule: a non-empty text, or a non-empty list of non-empty texts. */
function contextValue(v: unknown): string | string[] | null {
  if (typeof v === 'string') return v.length > 0 ? v : null;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x.length > 0))
    return v as string[];
  return null;
}

export async function transformedContext(
  config: ModelGradedConfig,
  c: EvalCase,
  answer: CandidateAnswer,
  exec: ExecDeps,
): Promise<TransformedContext> {
  const source = config.contextTransform!;
  const context = config.codeContext ?? { vars: {}, test: {}, cwd: process.cwd() };
  const label = source.file ? `contextTransform ${source.file.path}` : 'contextTransform';
  const call = scriptCall(
    source,
    outputValue(answer),
    { vars: context.vars, prompt: { label: promptText(c) } },
    'get_transform',
  );
  let r;
  try {
    r = await callScript(c, source.language, context.cwd, call, exec);
  } catch (err) {
    return { ok: false, error: `${label}: ${(err as Error).message}` };
  }
  if (!r.ok) return { ok: false, error: `${label} failed: ${r.error}` };
  const got = contextValue(r.value);
  if (got === null)
    return {
      ok: false,
      error: `${label} must return a non-empty text or a non-empty list of non-empty texts; it returned ${describe(r.value)}`,
    };
  // What the code returns comes from the answer: redacted and bounded as an answer is.
  const bounded = (t: string) => {
    const clean = exec.redactor.redact(t);
    return clean.length > MAX_ANSWER_CHARS ? `${clean.slice(0, MAX_ANSWER_CHARS)}…` : clean;
  };
  return { ok: true, context: typeof got === 'string' ? bounded(got) : got.map(bounded) };
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return `a list of ${v.length}`;
  return typeof v === 'string' ? 'an empty text' : `a ${typeof v}`;
}
