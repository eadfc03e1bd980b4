import { fence } from '../judge/fence.js';
import { type Judge } from '../judge/judge.js';
import { addUsage, emptyUsage, type EvaluatorResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { combineChildren, compositeVerdict, counts } from './case-scoring.js';
import {
  type CompositeConfig,
  type DeterministicConfig,
  type EvalCase,
  type EvaluatorConfig,
  type LlmJudgeConfig,
  type TextAssertionConfig,
} from '../suite/types.js';
import { runCodeJudge, runScoringScript } from './code-judge.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { caseContext } from './context.js';
import { type ExecDeps } from '../exec/deps.js';
import { scoreCost } from './cost.js';
import { scoreExecutionMetrics } from './execution-metrics.js';
import { expectedObject } from './expected-object.js';
import { scoreFieldAccuracy } from './field-accuracy.js';
import { scoreLatency } from './latency.js';
import { runLlmJudge } from './llm-judge.js';
import { runRubricScore } from './rubric-score.js';
import { renderPromptScript } from './prompt-script.js';
import { runSampledCase, type SampleTopUp } from './case-samples.js';
import { type SampleBook } from './sample-book.js';
import { type Score } from './score.js';
import { negateResult } from './negate.js';
import { prepareTextAssertion, scoreTextAssertion } from './text-assertion.js';
import { PatternRefusedError } from '../core/bounded-pattern.js';
import { scoreTokenUsage } from './token-usage.js';
import { scoreToolTrajectory } from './tool-trajectory.js';
import { traceOf } from './trace.js';
import { errorResult } from './error-result.js';

export interface EvaluationEnv {
  evalCase: EvalCase;
  answer: CandidateAnswer;
  judge: Judge;
  exec: ExecDeps;
  /** The case's judge samples, when `judge-samples` is not 1. */
  book?: SampleBook;
  /** `judge-samples: auto`: where the case offers the run more samples once it is decided. */
  offer?: (topUp: SampleTopUp) => void;
  /** The target's answer before this evaluator's transforms (what `contextTransform` is given). */
  original?: CandidateAnswer;
}

/** `path` names the evaluator's place in the case's tree (what judge samples are counted by). */
type Runner<T extends EvaluatorConfig['type']> = (
  config: Extract<EvaluatorConfig, { type: T }>,
  env: EvaluationEnv,
  path: string,
) => Promise<EvaluatorResult>;

/** The evaluators by type: each type's scoring lives in its own module. */
const EVALUATORS: { [T in EvaluatorConfig['type']]: Runner<T> } = {
  llm_judge: runLlmJudgeEvaluator,
  code_judge: (config, env, path) => {
    const run = () => runCodeJudge(config, env.evalCase, env.answer, env.exec);
    // Evaluated again in each `auto` round: a code judge runs once per case.
    return env.book ? env.book.once(`code:${path}`, run) : run();
  },
  composite: (config, env, path) => runComposite(config, env, path),
  field_accuracy: async (config, env) =>
    deterministicResult(
      config,
      scoreFieldAccuracy(config, env.answer.text, expectedObject(env.evalCase.expectedMessages)),
    ),
  latency: async (config, env) => deterministicResult(config, scoreLatency(config, env.answer.durationMs)),
  cost: async (config, env) => deterministicResult(config, scoreCost(config, env.answer.costUsd)),
  token_usage: async (config, env) =>
    deterministicResult(config, scoreTokenUsage(config, env.answer.tokenUsage)),
  tool_trajectory: async (config, env) =>
    deterministicResult(
      config,
      allOrNothing(config.allOrNothing, scoreToolTrajectory(config, traceOf(env.answer))),
    ),
  execution_metrics: async (config, env) =>
    deterministicResult(config, scoreExecutionMetrics(config, traceOf(env.answer))),
  // promptfoo's code and judged types are loaded when a suite has one (start-up does not pay for them).
  code_assertion: async (config, env) =>
    (await import(/* webpackMode: "eager" */ './code-assertion.js')).runCodeAssertion(
      config,
      env.evalCase,
      env.answer,
      env.exec,
    ),
  similarity: async (config, env) =>
    (await import(/* webpackMode: "eager" */ './similarity.js')).runSimilarity(
      config,
      env.answer.text,
      env.judge,
    ),
  model_graded: async (config, env) => {
    const { runModelGraded } = await import(/* webpackMode: "eager" */ './model-graded.js');
    if (!config.contextTransform) return runModelGraded(config, env.evalCase, env.answer.text, env.judge);
    const { transformedContext } = await import(/* webpackMode: "eager" */ './context-transform.js');
    const t = await transformedContext(config, env.evalCase, env.original ?? env.answer, env.exec);
    if (!t.ok) return errorResult(config, t.error);
    const vars = { ...config.codeContext?.vars, context: t.context };
    const codeContext = { test: {}, cwd: '.', ...config.codeContext, vars };
    // The context came from the answer: fenced wherever a prompt places it.
    return runModelGraded({ ...config, codeContext }, env.evalCase, env.answer.text, env.judge, ['context']);
  },
  tool_call: async (config, env) =>
    (await import(/* webpackMode: "eager" */ './openai-tool-call.js')).runToolCall(
      config,
      env.evalCase,
      env.answer,
    ),
  text_assertion: async (config, env) => {
    await prepareTextAssertion(config);
    try {
      return deterministicResult(config, scoreTextAssertion(config, env.answer.text));
    } catch (err) {
      if (!(err instanceof PatternRefusedError)) throw err;
      return refusedPattern(config, err);
    }
  },
};

/** Runs one evaluator of a case (recursively for composites). Never throws for a bad verdict. */
function runEvaluator(config: EvaluatorConfig, env: EvaluationEnv, path = 'e/0'): Promise<EvaluatorResult> {
  const run = EVALUATORS[config.type] as Runner<EvaluatorConfig['type']>;
  const result = config.transforms?.length
    ? import(/* webpackMode: "eager" */ './transform-output.js').then(({ withTransforms }) =>
        withTransforms(config, env.evalCase, env.answer, env.exec, (answer) =>
          run(config, { ...env, answer, original: env.original ?? env.answer }, path),
        ),
      )
    : run(config, env, path);
  return config.negate ? result.then(negateResult) : result;
}

/** A pattern the linear-time engine would not run: the check could not be made, an error. */
function refusedPattern(config: TextAssertionConfig, err: PatternRefusedError): EvaluatorResult {
  return errorResult(config, err.message);
}

/** A partial score becomes 0 for checks that are pass/fail in their format. */
function allOrNothing(on: boolean | undefined, s: Score): Score {
  return on && s.score < 1 ? { ...s, score: 0, verdict: 'fail' } : s;
}

function deterministicResult(config: DeterministicConfig | TextAssertionConfig, s: Score): EvaluatorResult {
  return {
    name: config.name,
    type: config.type,
    weight: config.weight,
    score: s.score,
    verdict: s.verdict,
    hits: s.hits,
    misses: s.misses,
    reasoning: s.reasoning,
    gating_violations: [],
  };
}

/** An llm_judge; with a prompt script, the script writes the prompt first (its failure is an error). */
async function runLlmJudgeEvaluator(
  config: LlmJudgeConfig,
  env: EvaluationEnv,
  path: string,
): Promise<EvaluatorResult> {
  const ctx = caseContext(env.evalCase, env.answer);
  const slot = env.book ? { book: env.book, path } : null;
  if (config.rubricScore)
    return runRubricScore({ ...config, rubricScore: config.rubricScore }, ctx, env.judge, slot);
  if (!config.promptScript) return runLlmJudge(config, ctx, env.judge, {}, slot);
  const script = config.promptScript;
  let template: string;
  try {
    const render = () => renderPromptScript(script, env.evalCase, env.answer, env.exec);
    template = await (env.book ? env.book.once(`prompt:${path}`, render) : render());
  } catch (err) {
    return {
      name: config.name,
      type: 'llm_judge',
      weight: config.weight,
      score: 0,
      verdict: 'error',
      error: (err as Error).message,
      gating_violations: [],
    };
  }
  const prompt = { path: script.command.join(' '), template };
  return runLlmJudge({ ...config, rubrics: null, prompt }, ctx, env.judge, {}, slot);
}

/**
 * Every evaluator of a case, concurrently; results in the order they were declared. With judge
 * samples on, the case's sampling decides how often each judged evaluator is asked.
 */
export function runEvaluators(
  configs: readonly EvaluatorConfig[],
  env: EvaluationEnv,
): Promise<EvaluatorResult[]> {
  // `judge` is absent for cases without any llm_judge (the pipeline passes none).
  const setting = (env.judge as Judge | undefined)?.samples ?? 1;
  if (setting === 1) return runChildren(configs, env, 'e');
  return runSampledCase(
    configs,
    setting,
    env.exec.signal,
    (book) => runChildren(configs, { ...env, book }, 'e'),
    env.evalCase.scoring,
    env.offer,
  );
}

function runChildren(
  configs: readonly EvaluatorConfig[],
  env: EvaluationEnv,
  path: string,
): Promise<EvaluatorResult[]> {
  return Promise.all(configs.map((c, i) => runEvaluator(c, env, `${path}/${i}`)));
}

/**
 * A composite: children run concurrently, then the aggregator combines their scores. A gating
 * violation or an error in any child carries up to the composite (and so to the case).
 */
async function runComposite(
  config: CompositeConfig,
  env: EvaluationEnv,
  path: string,
): Promise<EvaluatorResult> {
  const children = await runChildren(config.children, env, path);
  const usage = children.reduce((u, c) => addUsage(u, c.usage), emptyUsage());
  const gating = children.flatMap((c) => c.gating_violations.map((v) => `${c.name} › ${v}`));
  const hits = children.flatMap((c) => (c.hits ?? []).map((h) => `[${c.name}] ${h}`));
  const misses = children.flatMap((c) => (c.misses ?? []).map((m) => `[${c.name}] ${m}`));
  const base = {
    name: config.name,
    type: 'composite' as const,
    weight: config.weight,
    mode: 'aggregate' as const,
    children,
    usage,
  };
  const errored = children.filter((c) => c.verdict === 'error');
  if (errored.length > 0) {
    return {
      ...base,
      score: 0,
      verdict: 'error',
      gating_violations: gating,
      error: errored.map((c) => `${c.name}: ${c.error}`).join('; '),
      hits,
      misses,
    };
  }

  const a = await aggregate(config, children, env, path);
  // A judged aggregator's calls count for the composite whether or not it gave a score.
  addUsage(usage, a.usage);
  if (!a.ok) {
    return {
      ...base,
      score: 0,
      verdict: 'error',
      error: `aggregator: ${a.error}`,
      gating_violations: gating,
      hits,
      misses,
    };
  }
  return {
    ...base,
    score: a.score,
    verdict: compositeVerdict(config, a.score, children, gating),
    ...(config.assertSet?.threshold != null ? { threshold: config.assertSet.threshold } : {}),
    gating_violations: gating,
    hits,
    misses: [...misses, ...a.misses],
    reasoning: a.reasoning,
    ...a.samples,
  };
}

/** What an aggregator made of a composite's children: a score with its account, or why it gave none. */
type Aggregate = { usage?: Usage } & (
  | {
      ok: true;
      score: number;
      reasoning: string | null;
      misses: string[];
      samples: Pick<EvaluatorResult, 'samples' | 'sample_scores'>;
    }
  | { ok: false; error: string | undefined }
);

/** The children's scores combined by the composite's aggregator, one function per aggregator type. */
function aggregate(
  config: CompositeConfig,
  children: readonly EvaluatorResult[],
  env: EvaluationEnv,
  path: string,
): Aggregate | Promise<Aggregate> {
  const agg = config.aggregator;
  if (agg.type === 'all_or_nothing') return allOrNothingAggregate(agg, children);
  if (agg.type === 'weighted_average') return weightedAggregate(agg, children);
  if (agg.type === 'code_judge') return scriptAggregate(agg, children, env, path);
  return judgeAggregate(config.name, agg, children, env, path);
}

/**
 * The score and account of an aggregator with a fixed rule, undefined for a script or a judge:
 * what a composite is scored again by when advisory checks are left out of its children.
 */
export function fixedAggregate(
  config: Pick<CompositeConfig, 'aggregator'>,
  children: readonly EvaluatorResult[],
): Pick<Aggregate & { ok: true }, 'score' | 'reasoning'> | undefined {
  const agg = config.aggregator;
  if (agg.type === 'all_or_nothing') return allOrNothingAggregate(agg, children);
  if (agg.type === 'weighted_average') return weightedAggregate(agg, children);
  return undefined;
}

function allOrNothingAggregate(
  agg: Extract<CompositeConfig['aggregator'], { type: 'all_or_nothing' }>,
  children: readonly EvaluatorResult[],
): Aggregate & { ok: true } {
  const short = children.filter((c) => counts(c) && c.score < 1);
  return {
    ok: true,
    score: combineChildren(agg, children)!,
    reasoning: short.length === 0 ? 'every part met' : `not met: ${short.map((c) => c.name).join(', ')}`,
    misses: [],
    samples: {},
  };
}

function weightedAggregate(
  agg: Extract<CompositeConfig['aggregator'], { type: 'weighted_average' }>,
  children: readonly EvaluatorResult[],
): Aggregate & { ok: true } {
  return {
    ok: true,
    score: combineChildren(agg, children)!,
    reasoning: children
      .map((c) =>
        counts(c)
          ? `${c.name}: ${c.score.toFixed(2)}${agg.weights[c.name] !== undefined ? ` × ${agg.weights[c.name]}` : ''}`
          : `${c.name}: advisory, not counted`,
      )
      .join(', '),
    misses: [],
    samples: {},
  };
}

/** A `code_judge` aggregator: the script is given the children's scores by name. */
async function scriptAggregate(
  agg: Extract<CompositeConfig['aggregator'], { type: 'code_judge' }>,
  children: readonly EvaluatorResult[],
  env: EvaluationEnv,
  path: string,
): Promise<Aggregate> {
  const payload = { results: Object.fromEntries(children.map((c) => [c.name, c.score])) };
  const script = () => runScoringScript(agg.command, agg.cwd, payload, env.exec);
  const s = await (env.book ? env.book.once(`agg:${path}:${JSON.stringify(payload)}`, script) : script());
  if (!s.ok) return { ok: false, error: s.error };
  return { ok: true, score: s.score, reasoning: s.reasoning, misses: s.misses, samples: {} };
}

async function judgeAggregate(
  name: string,
  agg: Extract<CompositeConfig['aggregator'], { type: 'llm_judge' }>,
  children: readonly EvaluatorResult[],
  env: EvaluationEnv,
  path: string,
): Promise<Aggregate> {
  const r = await askAggregator(name, agg, children, env, path);
  if (r.verdict === 'error') return { ok: false, error: r.error, usage: r.usage };
  return {
    ok: true,
    score: r.score,
    reasoning: r.reasoning ?? null,
    misses: r.misses ?? [],
    samples: r.samples !== undefined ? { samples: r.samples, sample_scores: r.sample_scores } : {},
    usage: r.usage,
  };
}

/** A composite's `llm_judge` aggregator: a prompt judge shown the children's results (sampled like any llm_judge). */
function askAggregator(
  name: string,
  agg: Extract<CompositeConfig['aggregator'], { type: 'llm_judge' }>,
  children: readonly EvaluatorResult[],
  env: EvaluationEnv,
  path: string,
): Promise<EvaluatorResult> {
  const resultsJson = JSON.stringify(
    Object.fromEntries(
      children.map((c) => [
        c.name,
        {
          score: c.score,
          verdict: c.verdict,
          hits: c.hits ?? [],
          misses: c.misses ?? [],
          reasoning: c.reasoning ?? null,
        },
      ]),
    ),
    null,
    2,
  );
  const template = agg.prompt?.template ?? DEFAULT_AGGREGATOR_PROMPT;
  return runLlmJudge(
    {
      name: `${name}:aggregator`,
      weight: 1,
      rubrics: null,
      prompt: { path: agg.prompt?.path ?? '(default)', template },
    },
    caseContext(env.evalCase, env.answer),
    env.judge,
    {
      // The children's reasoning is model text about an untrusted answer: fenced like the answer.
      EVALUATOR_RESULTS_JSON: fence('evaluator_results', resultsJson),
    },
    env.book ? { book: env.book, path: `${path}/agg` } : null,
  );
}

const DEFAULT_AGGREGATOR_PROMPT = `Combine the child evaluators' results below into one final score from 0.0 to 1.0 for the candidate answer.

{{EVALUATOR_RESULTS_JSON}}`;
