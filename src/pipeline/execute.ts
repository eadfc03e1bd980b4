import { type ExecDeps } from '../exec/deps.js';
import { type Redactor } from '../exec/redact.js';
import { type Judge } from '../judge/judge.js';
import { type Subject } from '../checker/subject.js';
import {
  type CaseResult,
  type HistoryEntry,
  type CheckerResult,
  type GateResult,
  type SuiteResult,
} from '../core/results.js';
import { type MarkdownRubric } from '../checker/markdown-rubric.js';
import { runChecker } from '../checker/run-checker.js';
import { type TargetRunner } from '../targets/providers.js';
import { type JudgePool } from './context.js';
import { type CaseTopUp, executeCase } from './execute-case.js';
import { SampleTopUps } from './sample-top-up.js';
import { type SpendMeter } from './budget.js';
import { CaseSkips, skippedCase } from './skip.js';
import { skipWhy } from '../report/gate-lines.js';
import { repeatedCases } from './execute-repeats.js';
import { compareSiblings } from './compare-siblings.js';
import { type PlannedCase, type RunPlan } from './plan.js';

export interface Progress {
  done: number;
  total: number;
  suite: string;
  caseId: string;
  verdict: CaseResult['verdict'];
  score: number;
}

/** What execute needs from the run: the only stage that calls targets, gates and the judge. */
export interface ExecuteDeps {
  cwd: string;
  exec: ExecDeps;
  judges: JudgePool;
  redactor: Redactor;
  concurrency: number;
  signal: AbortSignal | undefined;
  /** What the markdown rubric judges. */
  subject: () => Promise<Subject>;
  history: readonly HistoryEntry[] | Promise<readonly HistoryEntry[]>;
  info(message: string): void;
  warn(message: string): void;
  progress?(p: Progress): void;
  /** `budget-usd`: the run's spend against its cap; null without one. */
  spend?: SpendMeter | null;
  /** Set by the action on a pull request from a fork (its cases need the trusted stage's judge). */
  untrustedFork?: boolean;
  /** The judge stage: the markdown rubric's gates as the pull request's run reported them (none run). */
  reportedGates?: (rubric: MarkdownRubric) => GateResult[];
}

export interface Executed {
  /** One entry per planned suite, in plan order, holding the cases that finished. */
  suites: SuiteResult[];
  rubric: CheckerResult | null;
  /** True when the run was cancelled: some planned cases are missing. */
  partial: boolean;
}

/**
 * Stage 3, execute: the markdown rubric's gates and checker alongside the cases. Results are
 * redacted as each piece finishes: small pieces, never the whole run at once.
 */
export async function executePlan(plan: RunPlan, deps: ExecuteDeps): Promise<Executed> {
  const defaultJudge = plan.defaultEndpoint ? deps.judges.for(plan.defaultEndpoint) : null;
  const [rubric, suites] = await Promise.all([
    executeChecker(plan, defaultJudge, deps),
    executeCases(plan, defaultJudge, deps).then(async (s) => {
      // promptfoo's select-best / max-score: decided once every sibling of a test is graded.
      await compareSiblings(plan.cases, s, defaultJudge, deps.redactor);
      return s;
    }),
  ]);
  return {
    suites,
    rubric: rubric ? deps.redactor.redactDeep(rubric) : null,
    partial: deps.signal?.aborted ?? false,
  };
}

function executeChecker(
  plan: RunPlan,
  judge: Judge | null,
  deps: ExecuteDeps,
): Promise<CheckerResult | null> {
  if (!plan.rubric) return Promise.resolve(null);
  return runChecker(plan.rubric, {
    cwd: deps.cwd,
    exec: deps.exec,
    judge,
    subject: deps.subject,
    history: deps.history,
    ...(plan.judgeUnavailable ? { noJudge: `criteria not judged: ${skipWhy('no-judge-credential')}` } : {}),
    reportedGates: deps.reportedGates,
    onGate: (g, i, n) =>
      deps.info(
        `gate [${i + 1}/${n}] ${g.verdict.toUpperCase()} ${g.command} (${g.timed_out ? 'timed out' : `exit ${g.exit_code}`}, ${(g.duration_ms / 1000).toFixed(1)} s)`,
      ),
  });
}

/** Health-checks each runner once: a target that is down errors its cases instead of each timing out. */
export async function healthChecks(runners: readonly TargetRunner[], warn: (m: string) => void) {
  const health = new Map<TargetRunner, string | null>();
  for (const runner of runners) {
    try {
      await runner.healthcheck();
      health.set(runner, null);
    } catch (err) {
      health.set(runner, (err as Error).message);
      warn(`healthcheck failed: ${(err as Error).message}`);
    }
  }
  return health;
}

async function executeCases(
  plan: RunPlan,
  defaultJudge: Judge | null,
  deps: ExecuteDeps,
): Promise<SuiteResult[]> {
  const suites: SuiteResult[] = plan.suites.map((s) => ({
    path: s.path,
    description: s.description,
    cases: [],
    ...(s.minPassRate !== undefined ? { min_pass_rate: s.minPassRate } : {}),
  }));
  if (plan.cases.length === 0) return suites;
  const health = await healthChecks(plan.runners, deps.warn);
  const skips = new CaseSkips(deps.spend ?? null, {
    untrusted: deps.untrustedFork ?? false,
    noCredential: plan.judgeUnavailable ?? false,
  });
  const repeated = repeatedCases(deps.warn);
  const work = plan.cases;
  // `judge-samples: auto`: cases judged on one answer offer the run their leftover doubt.
  const topUps = new SampleTopUps();
  const offerFor = (at: number, item: PlannedCase) =>
    defaultJudge?.samples === 'auto' && (item.repeat ?? 1) === 1
      ? (t: CaseTopUp) => topUps.offer(at, `${item.suite.path} ${item.evalCase.id}`, t)
      : undefined;
  // Results by plan position: they keep plan order whatever order the workers finish in.
  const slots: (CaseResult | undefined)[] = new Array<CaseResult | undefined>(work.length);
  let next = 0;
  let done = 0;
  // Workers pull cases one at a time: prompts are built as calls are made, not all up front.
  const workers = Math.min(work.length, Math.max(4, deps.concurrency * 2));
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < work.length && !deps.signal?.aborted) {
        const at = next++;
        const item = work[at]!;
        const healthError = health.get(item.target.runner) ?? null;
        const skip = skips.before(item);
        const ran = skip
          ? skippedCase(item, skip)
          : await repeated(
              item,
              (repeat) =>
                executeCase(
                  item,
                  healthError,
                  defaultJudge,
                  deps.exec,
                  deps.signal,
                  deps.spend ?? null,
                  repeat,
                  offerFor(at, item),
                ),
              deps.signal,
            );
        if (!ran) continue; // cancelled mid-case: not a finished case
        const result = skips.after(item, ran);
        slots[at] = deps.redactor.redactDeep(result);
        done++;
        deps.progress?.({
          done,
          total: work.length,
          suite: item.suite.path,
          caseId: item.evalCase.id,
          verdict: result.verdict,
          score: result.score,
        });
      }
    }),
  );
  const again = await topUps.run((at) => slots[at], { ...deps, spend: deps.spend ?? null });
  for (const [at, result] of again)
    if (slots[at]) slots[at] = deps.redactor.redactDeep(skips.after(work[at]!, result));
  work.forEach((item, at) => {
    const r = slots[at];
    if (r) suites[item.suiteIndex]!.cases.push(r);
  });
  return suites;
}
