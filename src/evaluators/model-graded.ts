import { addUsage, emptyUsage, type EvaluatorResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { type Judge, JudgeError } from '../judge/judge.js';
import { modelGradedPrompt, type PromptValues } from '../judge/model-graded-prompts.js';
import {
  MODEL_GRADED_SCHEMAS,
  type ModelGradedAnswer,
  type ModelGradedSchema,
  validateModelGraded,
} from '../judge/model-graded-schemas.js';
import { type EvalCase, type ModelGradedConfig } from '../suite/types.js';
import { promptText } from './code-assertion.js';
import { judgeErrorResult } from './llm-judge.js';
import { cosine, outcomeResult, type SimilarityOutcome } from './similarity.js';

/**
 * promptfoo's model-graded assertions, graded by promptfoo's rules with our prompts: what passes,
 * the score and the defaults are promptfoo's (each kind below says which). The judge is the run's
 * one judge; a suite's `rubricPrompt` replaces a step's prompt text, never its answer schema.
 */

type Outcome = SimilarityOutcome;

const FACTUALITY_TEXT: Record<string, string> = {
  A: 'The submitted answer is a subset of the expert answer and fully consistent with it.',
  B: 'The submitted answer is a superset of the expert answer and fully consistent with it.',
  C: 'The submitted answer contains all the same details as the expert answer.',
  D: 'The submitted answer disagrees with the expert answer.',
  E: 'The answers differ, but the differences do not matter for the facts.',
};

/** What one evaluation has asked so far: its usage, added to by every step. */
class Asker {
  readonly usage: Usage = emptyUsage();
  constructor(
    private readonly judge: Judge,
    private readonly config: ModelGradedConfig,
    private readonly fromAnswer: readonly string[],
  ) {}

  /** The suite's prompt for a step, when it gives one (by position or name for two-step kinds). */
  private suitePrompt(slot: number | string): string | null {
    const p = this.config.rubricPrompt;
    if (p === null) return null;
    if (typeof p === 'string') return slot === 0 ? p : null;
    if (Array.isArray(p)) return typeof slot === 'number' ? (p[slot] ?? null) : null;
    return typeof slot === 'string' ? (p[slot] ?? null) : null;
  }

  async ask<K extends ModelGradedSchema>(
    step: K,
    values: PromptValues,
    slot: number | string = 0,
    check?: (v: ModelGradedAnswer<K>) => string | null,
  ): Promise<ModelGradedAnswer<K>> {
    const vars = this.config.codeContext?.vars ?? {};
    const a = await this.judge.judge({
      prompt: modelGradedPrompt(
        step,
        fencedVars(values, vars, this.fromAnswer),
        vars,
        this.suitePrompt(slot),
      ),
      schemaName: `promptfoo_${step}`,
      wireSchema: MODEL_GRADED_SCHEMAS[step],
      validate: (d) => {
        const v = validateModelGraded(step, d);
        const problem = v.ok && check ? check(v.value) : null;
        return problem ? { ok: false, error: problem } : v;
      },
    });
    addUsage(this.usage, a.usage);
    return a.value;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const r = await this.judge.embed(texts);
    addUsage(this.usage, r.usage);
    return r.vectors;
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A step's values with every var drawn from the answer among the untrusted ones, so it is fenced
 * wherever a prompt places it (ours, or a suite's `rubricPrompt` naming it in any step).
 */
function fencedVars(
  values: PromptValues,
  vars: Record<string, unknown>,
  fromAnswer: readonly string[],
): PromptValues {
  if (fromAnswer.length === 0) return values;
  const plain = { ...values.plain };
  const untrusted = { ...values.untrusted };
  for (const k of fromAnswer) {
    if (Object.hasOwn(untrusted, k)) continue;
    const v = Object.hasOwn(plain, k) ? plain[k] : vars[k];
    delete plain[k];
    if (v !== undefined) untrusted[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return { plain, untrusted };
}

/** `vars.context` as promptfoo reads it: a text, or a list of texts (one per line). */
function contextOf(vars: Record<string, unknown>, fallback: string | null): string {
  const c = vars.context;
  if (typeof c === 'string' && c !== '') return c;
  if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) return c.join('\n');
  if (fallback) return fallback;
  throw new JudgeError('needs a `context` variable in the test (a text, or a list of texts)', emptyUsage());
}

function queryOf(vars: Record<string, unknown>): string {
  const q = text(vars.query);
  if (q === null)
    throw new JudgeError('needs a `query` variable in the test (the user question)', emptyUsage());
  return q;
}

const lines = (t: string) => t.split('\n').filter((l) => l.trim() !== '');

/**
 * The units context-relevance counts, as promptfoo 0.121 segments them: a list's chunks; a text of
 * several lines, one per line; one line of prose, its sentences (a bare `1.` marker is none).
 */
function contextUnits(vars: Record<string, unknown>): string[] {
  const c = vars.context;
  if (Array.isArray(c)) return c.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  const t = contextOf(vars, null);
  const ls = lines(t);
  return (ls.length > 1 ? ls : t.split(/(?<=[.!?])\s+/))
    .map((s) => s.trim())
    .filter((s) => s !== '' && !/^\d+[.)]$/.test(s));
}

type Grader = (config: ModelGradedConfig, c: EvalCase, answer: string, asker: Asker) => Promise<Outcome>;

const ratio = (name: string, score: number, threshold: number): Outcome => {
  const pass = score >= threshold - Number.EPSILON;
  return { pass, score, reason: `${name} ${score.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}` };
};

const GRADERS: Record<ModelGradedConfig['kind'], Grader> = {
  // A category scores by `options.factuality` (A, B, C, E: 1; D: 0); it passes when it scores above 0.
  factuality: async (config, c, answer, asker) => {
    const a = await asker.ask('factuality', {
      plain: { input: promptText(c), ideal: config.values[0]! },
      untrusted: { completion: answer },
    });
    const score = config.factuality[a.category];
    return {
      pass: score > 0,
      score,
      reason: a.reason.trim() || `Category ${a.category}: ${FACTUALITY_TEXT[a.category]}`,
    };
  },
  'model-graded-closedqa': async (config, c, answer, asker) => {
    const a = await asker.ask('closedqa', {
      plain: { input: promptText(c), criteria: config.values[0]! },
      untrusted: { completion: answer },
    });
    const verdict = a.meets_criterion ? 'meets' : 'does not meet';
    return {
      pass: a.meets_criterion,
      score: a.meets_criterion ? 1 : 0,
      reason: `The submission ${verdict} the criterion: ${a.reason}`,
    };
  },
  // Steps from the criteria, then a score out of 10; several criteria: the mean. Default threshold 0.7.
  'g-eval': async (config, c, answer, asker) => {
    const scores: number[] = [];
    const reasons: string[] = [];
    for (const criteria of config.values) {
      const { steps } = await asker.ask(
        'geval_steps',
        { plain: { criteria }, untrusted: {} },
        'steps',
        (v) => (v.steps.length === 0 ? 'propose at least one evaluation step' : null),
      );
      const a = await asker.ask(
        'geval_score',
        {
          plain: { criteria, steps: steps.join('\n- '), maxScore: '10', input: promptText(c) },
          untrusted: { output: answer },
        },
        'evaluate',
      );
      scores.push(a.score / 10);
      reasons.push(a.reason);
    }
    const score = scores.reduce((s, x) => s + x, 0) / scores.length;
    return { pass: score >= config.threshold, score, reason: reasons.join('\n\n') };
  },
  // Questions the answer answers, each compared (embeddings, cosine) with the query (else the prompt).
  'answer-relevance': async (config, c, answer, asker) => {
    const vars = config.codeContext?.vars ?? {};
    const input = text(vars.query) ?? promptText(c);
    const { questions } = await asker.ask('questions', { plain: {}, untrusted: { answer } }, 0, (v) =>
      v.questions.length === 0 ? 'write three questions' : null,
    );
    const asked = questions.slice(0, 3);
    const [q, ...vs] = await asker.embed([input, ...asked]);
    const sims = vs.map((v) => cosine(q!, v));
    const score = sims.reduce((s, x) => s + x, 0) / sims.length;
    return ratio('Relevance', score, config.threshold);
  },
  // The answer's statements, then which the context supports: the supported share.
  'context-faithfulness': async (config, _c, answer, asker) => {
    const vars = config.codeContext?.vars ?? {};
    const query = queryOf(vars);
    const context = contextOf(vars, null);
    const { statements } = await asker.ask(
      'statements',
      { plain: { question: query }, untrusted: { answer } },
      0,
    );
    if (statements.length === 0)
      return { pass: false, score: 0, reason: 'the answer makes no statement to check' };
    const numbered = statements.map((s, i) => `${i + 1}. ${s}`).join('\n');
    const { verdicts } = await asker.ask(
      'verdicts',
      { plain: {}, untrusted: { context, statements: numbered } },
      1,
      (v) =>
        v.verdicts.length === statements.length
          ? null
          : `answer exactly ${statements.length} verdicts, one per statement in order`,
    );
    const supported = verdicts.filter((v) => v.supported).length;
    return ratio('Faithfulness', supported / statements.length, config.threshold);
  },
  // The share of the context's units (lines, else sentences) that are relevant to the query.
  'context-relevance': async (config, _c, _answer, asker) => {
    const vars = config.codeContext?.vars ?? {};
    const query = queryOf(vars);
    const all = contextUnits(vars).map((u) => u.replace(/\s*\n\s*/g, ' '));
    const numbered = all.map((l, i) => `${i + 1}. ${l}`).join('\n');
    const a = await asker.ask('relevant_lines', { plain: { query }, untrusted: { context: numbered } });
    const relevant = new Set(a.relevant_lines.filter((n) => n >= 1 && n <= all.length));
    return ratio('Relevance', all.length > 0 ? relevant.size / all.length : 0, config.threshold);
  },
  // The share of the reference's sentences the context (else the prompt) supports.
  'context-recall': async (config, c, _answer, asker) => {
    const vars = config.codeContext?.vars ?? {};
    const context = contextOf(vars, promptText(c));
    const { sentences } = await asker.ask('attributions', {
      plain: { groundTruth: config.values[0]! },
      untrusted: { context },
    });
    const attributed = sentences.filter((s) => s.attributed).length;
    return ratio('Recall', sentences.length > 0 ? attributed / sentences.length : 0, config.threshold);
  },
  // A window per turn over `vars._conversation` (else the prompt and this answer), as promptfoo
  // slides them: the turn and up to windowSize - 1 before it; the share whose last reply is relevant.
  'conversation-relevance': async (config, c, answer, asker) => {
    const vars = config.codeContext?.vars ?? {};
    const turns =
      Array.isArray(vars._conversation) && vars._conversation.length > 0
        ? (vars._conversation as { input?: unknown; output?: unknown }[])
        : [{ input: promptText(c), output: answer }];
    const size = config.windowSize;
    const windows = turns.length;
    let relevant = 0;
    const reasons: string[] = [];
    for (let i = 0; i < windows; i++) {
      const messages = turns
        .slice(Math.max(0, i - size + 1), i + 1)
        .flatMap((t) => [
          `user: ${typeof t.input === 'string' ? t.input : JSON.stringify(t.input)}`,
          `assistant: ${typeof t.output === 'string' ? t.output : JSON.stringify(t.output)}`,
        ])
        .join('\n');
      const a = await asker.ask('relevance', { plain: {}, untrusted: { messages } });
      if (a.verdict === 'yes') relevant++;
      else reasons.push(a.reason);
    }
    const score = relevant / windows;
    const pass = score >= config.threshold - Number.EPSILON;
    const summary = `${relevant} out of ${windows} conversation windows were relevant`;
    return { pass, score, reason: reasons.length > 0 ? `${summary}: ${reasons.join(' ')}` : summary };
  },
};

/** `fromAnswer`: the names of the vars drawn from the answer (a `contextTransform`'s `context`). */
export async function runModelGraded(
  config: ModelGradedConfig,
  c: EvalCase,
  answer: string,
  judge: Judge,
  fromAnswer: readonly string[] = [],
): Promise<EvaluatorResult> {
  const base = { name: config.name, type: 'model_graded' as const, weight: config.weight };
  const asker = new Asker(judge, config, fromAnswer);
  try {
    const o = await GRADERS[config.kind](config, c, answer, asker);
    // `not-g-eval`, `not-conversation-relevance`: promptfoo swaps the pass and scores 1 - s.
    const graded = config.inverse ? { pass: !o.pass, score: 1 - o.score, reason: `not: ${o.reason}` } : o;
    return outcomeResult(base, graded, config.threshold, asker.usage);
  } catch (err) {
    if (err instanceof JudgeError) {
      const r = judgeErrorResult(base, err);
      return { ...r, error: `${config.kind}: ${r.error}`, usage: addUsage(asker.usage, err.usage) };
    }
    throw err;
  }
}
