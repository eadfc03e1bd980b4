import { setMaxListeners } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { type BaselineFinder } from './baseline/load.js';
import { compareStage } from './baseline/stage.js';
import { type Config } from './config.js';
import { type Diagnostic, formatDiagnostic } from './diagnostics.js';
import { type CandidateAnswer } from './evaluators/context.js';
import { type ExecDeps } from './evaluators/deps.js';
import { runEvaluators } from './evaluators/evaluate.js';
import { childEnv, Redactor, secretsFromEnv } from './exec/redact.js';
import { JudgeCache } from './judge/cache.js';
import { type EndpointConfig } from './judge/chat.js';
import { Judge } from './judge/judge.js';
import { AdaptiveLimiter, CancelledError } from './judge/limiter.js';
import { DEFAULT_PRICES } from './judge/pricing.js';
import { type Subject } from './judge/prompts.js';
import {
  addUsage,
  type CaseResult,
  emptyUsage,
  type HistoryEntry,
  type RubricResult,
  type RunResults,
  type SuiteResult,
} from './results.js';
import { runMarkdownRubric } from './rubric-check.js';
import { aggregateCase, aggregateRun, formatRubricCounts } from './rubric/scoring.js';
import { findSuiteFiles, loadSuites } from './suite/discover.js';
import { type MarkdownRubric, rubricFromInput } from './suite/markdown-rubric.js';
import { type EvalCase, type EvalSuite, type EvaluatorConfig } from './suite/types.js';
import { Workspace } from './suite/workspace.js';
import { loadAnswersFile } from './targets/answers-file.js';
import { type CaseTarget, planTargets, type TargetPlan } from './targets/plan.js';
import { type TargetRunner } from './targets/providers.js';

export const GITHUB_MODELS_URL = 'https://models.github.ai/inference';
export const OPENAI_URL = 'https://api.openai.com/v1';

export interface Progress {
  done: number;
  total: number;
  suite: string;
  caseId: string;
  verdict: CaseResult['verdict'];
  score: number;
}

export interface RunHooks {
  info?(message: string): void;
  warn?(message: string): void;
  progress?(p: Progress): void;
  phase?<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

export interface RunIO {
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** What the markdown rubric judges: the PR (GitHub API), a git diff, the last commit. */
  subject?: () => Promise<Subject>;
  /** Earlier runs on this pull request, oldest first (from the sticky comment). */
  history?: HistoryEntry[];
  commit?: string | null;
  hooks?: RunHooks;
  /** How the adapter finds the baseline for `baseline: auto` (the base branch's artifact). */
  baseline?: BaselineFinder;
}

export interface RunOutcome {
  results: RunResults;
  diagnostics: Diagnostic[];
  redactor: Redactor;
  stats: {
    judgeCalls: number;
    retries: number;
    repairs: number;
    rateLimited: number;
    timeouts: number;
    peakInFlight: number;
  };
}

/** The judge endpoint from the inputs (CONTRACTS §1): GitHub Models with the token, unless a key is given. */
export function judgeEndpoint(config: Config): { endpoint: EndpointConfig } | { error: string } {
  const j = config.judge;
  const baseURL = j.baseURL ?? (j.apiKey ? OPENAI_URL : GITHUB_MODELS_URL);
  const isGitHubModels = baseURL.replace(/\/+$/, '') === GITHUB_MODELS_URL;
  const apiKey = j.apiKey ?? (isGitHubModels ? j.githubToken : null) ?? '';
  if (isGitHubModels && !apiKey) {
    return {
      error:
        'no judge credentials: set `judge-api-key` (with `judge-base-url` for a non-OpenAI endpoint), or give `github-token` with `permissions: models: read` to judge with GitHub Models',
    };
  }
  const model = j.model ?? (isGitHubModels ? 'openai/gpt-4.1-mini' : 'gpt-4.1-mini');
  return { endpoint: { baseURL, apiKey, model, azure: null, timeoutMs: j.timeoutMs } };
}

function usesLlm(e: EvaluatorConfig): boolean {
  return (
    e.type === 'llm_judge' ||
    (e.type === 'composite' && (e.aggregator.type === 'llm_judge' || e.children.some(usesLlm)))
  );
}

/**
 * The pipeline: load and validate everything (no model is called while anything is invalid),
 * then answers → evaluators → case results, the markdown rubric alongside, and the run verdict.
 * Never throws for bad input or a misbehaving model: problems end up in the results, and an
 * error is never a pass.
 */
export async function runEvaluation(config: Config, io: RunIO): Promise<RunOutcome> {
  const started = Date.now();
  const hooks = io.hooks ?? {};
  // Every call in flight listens on the run's signal: up to `concurrency` listeners, legitimately.
  if (io.signal) setMaxListeners(0, io.signal);
  const phase = hooks.phase ?? (<T>(_n: string, fn: () => Promise<T>) => fn());
  const ws = new Workspace(config.workingDirectory);
  const withheld = [config.judge.apiKey, config.judge.githubToken].filter((s): s is string => !!s);
  const redactor = new Redactor([...withheld, ...secretsFromEnv(io.env)]);
  const limiter = new AdaptiveLimiter(config.concurrency);
  const exec: ExecDeps = {
    processLimiter: new AdaptiveLimiter(Math.max(2, os.availableParallelism?.() ?? os.cpus().length)),
    redactor,
    childEnv: childEnv(io.env, withheld),
    commandTimeoutMs: config.gateTimeoutMs,
    signal: io.signal,
  };
  const diagnostics: Diagnostic[] = [];
  // Everything logged goes through the redactor: a gate command may itself contain a secret.
  const warn = (m: string) => hooks.warn?.(redactor.redact(m));
  const info = (m: string) => hooks.info?.(redactor.redact(m));

  // ---- load and validate: all problems of all files, before any call ----
  const loaded = await phase('Load and validate', async () => {
    let suites: EvalSuite[] = [];
    if (config.suites.length > 0) {
      const found = await findSuiteFiles(config.suites, ws.root);
      diagnostics.push(...found.diagnostics);
      const r = loadSuites(found.files, ws);
      diagnostics.push(...r.diagnostics);
      suites = r.suites;
    }
    let rubric: MarkdownRubric | undefined;
    if (config.rubric) {
      const r = rubricFromInput(config.rubric, ws, ws.root);
      diagnostics.push(...r.diagnostics);
      rubric = r.rubric;
    }
    let answers: TargetRunner | null = null;
    if (config.answersFile) {
      const r = loadAnswersFile(path.resolve(ws.root, config.answersFile), ws);
      diagnostics.push(...r.diagnostics);
      answers = r.runner ?? null;
    }
    let plan: TargetPlan | undefined;
    const cases = suites.flatMap((s) => s.cases);
    if (cases.length > 0 && !diagnostics.some((d) => d.severity === 'error')) {
      const r = planTargets(suites, {
        ws,
        targetsFile: config.targets ? path.resolve(ws.root, config.targets) : null,
        targetOverride: config.target,
        answers,
        env: io.env,
        deps: {
          limiter,
          redactor,
          childEnv: exec.childEnv,
          modelTimeoutMs: config.judge.timeoutMs,
          commandTimeoutMs: config.gateTimeoutMs,
          signal: io.signal,
          warn,
        },
      });
      diagnostics.push(...r.diagnostics);
      plan = r.plan;
    }
    return { suites, rubric, plan };
  });

  const cache = new JudgeCache(
    config.cacheDir ? path.resolve(ws.root, config.cacheDir) : null,
    config.cacheDir ? config.cacheMode : 'off',
  );
  const judges = new Map<string, Judge>();
  const judgeFor = (endpoint: EndpointConfig): Judge => {
    const key = JSON.stringify(endpoint);
    let j = judges.get(key);
    if (!j) {
      j = new Judge(endpoint, {
        limiter,
        cache,
        prices: { ...DEFAULT_PRICES, ...config.judge.prices },
        signal: io.signal,
        warn,
      });
      judges.set(key, j);
    }
    return j;
  };

  const needsDefaultJudge =
    (loaded.rubric && loaded.rubric.criteria.length + loaded.rubric.niceToHave.length > 0) ||
    loaded.suites.some((s) =>
      s.cases.some((c) => c.evaluators.some(usesLlm) && !loaded.plan?.forCase(s, c)?.judge),
    );
  let defaultEndpoint: EndpointConfig | null = null;
  if (needsDefaultJudge && config.cacheMode !== 'replay') {
    const r = judgeEndpoint(config);
    if ('error' in r)
      diagnostics.push({
        severity: 'error',
        file: 'inputs',
        line: 0,
        column: 0,
        rule: 'judge-credentials',
        message: r.error,
      });
    else defaultEndpoint = r.endpoint;
  } else if (needsDefaultJudge) {
    const r = judgeEndpoint({
      ...config,
      judge: { ...config.judge, apiKey: config.judge.apiKey ?? 'replay' },
    });
    defaultEndpoint = 'endpoint' in r ? r.endpoint : null;
  }

  const errors = diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
  const warnings = diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic);
  const judgeInfo = defaultEndpoint
    ? { model: defaultEndpoint.model, base_url: defaultEndpoint.baseURL }
    : null;
  const stats = () => {
    const all = [...judges.values()];
    return {
      judgeCalls: all.reduce((s, j) => s + j.chat.stats.calls, 0),
      retries: all.reduce((s, j) => s + j.chat.stats.retries, 0),
      repairs: all.reduce((s, j) => s + j.stats.repairs, 0),
      rateLimited: all.reduce((s, j) => s + j.chat.stats.rateLimited, 0),
      timeouts: all.reduce((s, j) => s + j.chat.stats.timeouts, 0),
      peakInFlight: limiter.peak,
    };
  };
  if (errors.length > 0) {
    // Invalid input: nothing is judged, the run fails, and the results say why.
    return {
      results: finalize({
        suites: [],
        rubric: null,
        errors,
        warnings,
        partial: false,
        judge: judgeInfo,
        history: io.history ?? [],
        commit: io.commit ?? null,
        started,
      }),
      diagnostics,
      redactor,
      stats: stats(),
    };
  }
  for (const w of warnings) warn(w);

  // ---- run: the rubric's gates and checker alongside the cases ----
  const defaultJudge = defaultEndpoint ? judgeFor(defaultEndpoint) : null;
  // The rubric and the cases run side by side, inside one log group (groups cannot interleave).
  const runRubric = (): Promise<RubricResult | null> =>
    loaded.rubric
      ? runMarkdownRubric(loaded.rubric, {
          cwd: ws.root,
          exec,
          judge: defaultJudge,
          subject:
            io.subject ??
            (() => Promise.reject(new Error('no subject to judge: not a pull request and no diff given'))),
          history: io.history ?? [],
          onGate: (g, i, n) =>
            info(
              `gate [${i + 1}/${n}] ${g.verdict.toUpperCase()} ${g.command} (${g.timed_out ? 'timed out' : `exit ${g.exit_code}`}, ${(g.duration_ms / 1000).toFixed(1)} s)`,
            ),
        })
      : Promise.resolve(null);

  const suiteResults: SuiteResult[] = loaded.suites.map((s) => ({
    path: s.path,
    description: s.description,
    cases: [],
  }));
  const runCases = async () => {
    if (!loaded.plan) return;
    const plan = loaded.plan;
    const health = new Map<TargetRunner, string | null>();
    for (const runner of plan.runners) {
      try {
        await runner.healthcheck();
        health.set(runner, null);
      } catch (err) {
        health.set(runner, (err as Error).message);
        warn(`healthcheck failed: ${(err as Error).message}`);
      }
    }
    const work = loaded.suites.flatMap((suite, si) => suite.cases.map((c, ci) => ({ suite, si, c, ci })));
    const slots: (CaseResult | undefined)[][] = loaded.suites.map(
      (s) => new Array<CaseResult | undefined>(s.cases.length),
    );
    let next = 0;
    let done = 0;
    // Workers pull cases one at a time: prompts are built as calls are made, not all up front.
    const workers = Math.min(work.length, Math.max(4, config.concurrency * 2));
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (next < work.length && !io.signal?.aborted) {
          const item = work[next++]!;
          const target = plan.forCase(item.suite, item.c);
          const result = await runCase(
            item.c,
            target,
            health.get(target.runner) ?? null,
            target.judge ? judgeFor(target.judge) : defaultJudge,
            exec,
            io.signal,
          );
          if (!result) continue; // cancelled mid-case: not a finished case
          // Redacted as each case finishes: small pieces, never the whole run at once.
          slots[item.si]![item.ci] = redactor.redactDeep(result);
          done++;
          hooks.progress?.({
            done,
            total: work.length,
            suite: item.suite.path,
            caseId: item.c.id,
            verdict: result.verdict,
            score: result.score,
          });
        }
      }),
    );
    slots.forEach(
      (list, i) => (suiteResults[i]!.cases = list.filter((r): r is CaseResult => r !== undefined)),
    );
  };

  const [rubricResult] = await phase('Evaluate', () => Promise.all([runRubric(), runCases()]));
  const partial = io.signal?.aborted ?? false;
  const results = finalize({
    suites: suiteResults,
    rubric: rubricResult ? redactor.redactDeep(rubricResult) : null,
    errors: [],
    warnings,
    partial,
    judge: judgeInfo,
    history: io.history ?? [],
    commit: io.commit ?? null,
    started,
  });
  const s = stats();
  results.judge_stats = {
    http_calls: s.judgeCalls,
    retries: s.retries,
    repairs: s.repairs,
    rate_limited: s.rateLimited,
    timeouts: s.timeouts,
    peak_in_flight: s.peakInFlight,
  };
  const compared = await compareStage(results, config, { ws, finder: io.baseline, warn });
  return { results: compared, diagnostics, redactor, stats: s };
}

async function runCase(
  c: EvalCase,
  target: CaseTarget,
  healthError: string | null,
  judge: Judge | null,
  exec: ExecDeps,
  signal: AbortSignal | undefined,
): Promise<CaseResult | undefined> {
  const started = Date.now();
  const base = { id: c.id, line: c.pos.line, target: target.runner.name, gating_violations: [] as string[] };
  const errorCase = (message: string, answer: string | null = null): CaseResult => ({
    ...base,
    verdict: 'error',
    score: 0,
    evaluators: [],
    answer,
    error: message,
    duration_ms: Date.now() - started,
  });
  if (healthError) return errorCase(healthError);
  let answer: CandidateAnswer;
  try {
    const a = await target.runner.answer(c, 1);
    answer = { text: a.text, outputMessages: a.outputMessages };
  } catch (err) {
    if (signal?.aborted || err instanceof CancelledError) return undefined;
    return errorCase((err as Error).message);
  }
  try {
    if (!judge && c.evaluators.some(usesLlm))
      return errorCase('no judge configured for an llm_judge evaluator', answer.text);
    const evaluators = await runEvaluators(c.evaluators, { evalCase: c, answer, judge: judge!, exec });
    if (signal?.aborted) return undefined;
    const agg = aggregateCase(evaluators);
    const usage = evaluators.reduce((u, e) => addUsage(u, e.usage), emptyUsage());
    return { ...base, ...agg, evaluators, answer: answer.text, duration_ms: Date.now() - started, usage };
  } catch (err) {
    if (signal?.aborted) return undefined;
    // A bug of ours must not pass a case: it is an error with the reason.
    return errorCase(`internal error: ${(err as Error).stack ?? String(err)}`, answer.text);
  }
}

function finalize(p: {
  suites: SuiteResult[];
  rubric: RubricResult | null;
  errors: string[];
  warnings: string[];
  partial: boolean;
  judge: RunResults['judge'];
  history: HistoryEntry[];
  commit: string | null;
  started: number;
}): RunResults {
  const cases = p.suites.flatMap((s) => s.cases);
  const agg = aggregateRun(cases, p.rubric);
  const verdict = p.errors.length > 0 || p.partial ? 'fail' : agg.verdict;
  const usage = emptyUsage();
  for (const c of cases) addUsage(usage, c.usage);
  addUsage(usage, p.rubric?.usage);
  const entry: HistoryEntry = {
    iteration: p.history.length,
    commit: p.commit,
    verdict,
    score: round4(agg.score),
    counts: p.rubric
      ? formatRubricCounts(p.rubric.counts)
      : `${agg.counts.pass} pass · ${agg.counts.borderline} borderline · ${agg.counts.fail + agg.counts.error} fail`,
    feedback: p.rubric?.feedback ?? firstFailure(p.suites, p.errors),
    rubric_hash: p.rubric?.hash ?? null,
    rubric_verdict: p.rubric
      ? p.rubric.judge_verdict === 'terminate'
        ? 'terminate'
        : p.rubric.verdict === 'pass'
          ? 'accept'
          : 'retry'
      : null,
    at: new Date().toISOString(),
  };
  return {
    version: 1,
    verdict,
    score: round4(agg.score),
    counts: agg.counts,
    suites: p.suites,
    rubric: p.rubric,
    usage,
    partial: p.partial,
    errors: p.errors,
    warnings: p.warnings,
    history: [...p.history, entry],
    judge: p.judge,
    started_at: new Date(p.started).toISOString(),
    duration_ms: Date.now() - p.started,
  };
}

function firstFailure(suites: SuiteResult[], errors: string[]): string | null {
  if (errors.length > 0) return errors[0]!;
  for (const s of suites)
    for (const c of s.cases)
      if (c.verdict === 'fail' || c.verdict === 'error')
        return `${c.id}: ${c.error ?? c.gating_violations[0] ?? `score ${c.score.toFixed(2)}`}`;
  return null;
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Whether the verdict trips `fail-on` (so the check fails). */
export function tripsFailOn(verdict: RunResults['verdict'], failOn: Config['failOn']): boolean {
  if (failOn === 'never') return false;
  if (verdict === 'fail') return true;
  return failOn === 'borderline' && verdict === 'borderline';
}
