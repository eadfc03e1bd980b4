import { type EvaluatorResult } from '../core/results.js';
import { type ExecDeps } from '../exec/deps.js';
import { type CodeContext, type CodeSource, type EvalCase, type EvaluatorConfig } from '../suite/types.js';
import { outputValue, promptText, scriptCall } from './code-assertion.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { callScript } from './script-batch.js';
import { judgedAnswer } from './judged-answer.js';
import { errorResult } from './error-result.js';
import { type AnswerCut } from '../core/results.js';

/**
 * promptfoo transforms: the test's `options.transform` (else `defaultTest`'s), then the
 * assertion's own `transform`, each the suite's code run like a code assertion. The evaluator
 * grades what they return (an object is graded as its JSON text, and code sees the object);
 * its result keeps that text beside the case's original answer. A chain's steps are computed
 * once per answer: the test's transform runs once however many assertions it precedes.
 */

type Outcome = { ok: true; answer: CandidateAnswer; cut: AnswerCut | null } | { ok: false; error: string };

const done = new WeakMap<CandidateAnswer, Map<string, Promise<Outcome>>>();

/** How much of the transformed output a result keeps for the reports. */
const SHOWN_CHARS = 4000;

const sourceKey = (s: CodeSource) =>
  JSON.stringify([s.language, s.code, s.file?.absPath ?? null, s.file?.fn ?? null]);

/** promptfoo's coerceString: text stays text, anything else is its JSON. */
function asText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

function applyChain(
  chain: readonly CodeSource[],
  answer: CandidateAnswer,
  c: EvalCase,
  context: CodeContext,
  exec: ExecDeps,
): Promise<Outcome> {
  let memo = done.get(answer);
  if (!memo) done.set(answer, (memo = new Map()));
  const key = chain.map(sourceKey).join('\u0000');
  const known = memo.get(key);
  if (known) return known;
  const step = async (): Promise<Outcome> => {
    const before = chain.length > 1 ? await applyChain(chain.slice(0, -1), answer, c, context, exec) : null;
    if (before && !before.ok) return before;
    const input = before ? before.answer : answer;
    const source = chain[chain.length - 1]!;
    const ctx = { vars: context.vars, prompt: { label: promptText(c) } };
    const call = scriptCall(source, outputValue(input), ctx, 'get_transform');
    const label = source.file ? `transform ${source.file.path}` : 'transform';
    try {
      const r = await callScript(c, source.language, context.cwd, call, exec);
      if (!r.ok) return { ok: false, error: `${label} failed: ${r.error}` };
      if (r.value === null || r.value === undefined)
        return { ok: false, error: `${label} did not return a value` };
      // The transform's text is what the judges see: redacted and capped as every answer is (the README's Guarantees).
      const { answer: judged, cut } = judgedAnswer(
        { ...input, text: asText(r.value), value: undefined },
        exec.redactor,
      );
      // Code is given a transform's object; its text is the capped text.
      const next: CandidateAnswer = typeof r.value === 'string' ? judged : { ...judged, value: r.value };
      return { ok: true, answer: next, cut: cut ?? before?.cut ?? null };
    } catch (err) {
      return { ok: false, error: `${label}: ${(err as Error).message}` };
    }
  };
  const p = step();
  memo.set(key, p);
  return p;
}

/**
 * Runs `grade` on the answer as the config's transforms leave it; a transform that fails makes
 * the evaluator an error (promptfoo: the test errors), never a grade of the untransformed text.
 */
export async function withTransforms(
  config: EvaluatorConfig,
  c: EvalCase,
  answer: CandidateAnswer,
  exec: ExecDeps,
  grade: (answer: CandidateAnswer) => Promise<EvaluatorResult>,
): Promise<EvaluatorResult> {
  const chain = config.transforms ?? [];
  if (chain.length === 0) return grade(answer);
  const context = config.codeContext ?? { vars: {}, test: {}, cwd: process.cwd() };
  const out = await applyChain(chain, answer, c, context, exec);
  if (!out.ok) return errorResult(config, out.error);
  const result = await grade(out.answer);
  const text = out.answer.text;
  const shown = text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
  const cut = out.cut
    ? ` [the transformed output, ${out.cut.original_chars} characters, was cut to ${out.cut.kept_chars} before it was graded]`
    : '';
  return { ...result, transformed_output: shown + cut };
}
