import os from 'node:os';
import path from 'node:path';
import { type Config } from '../config/config.js';
import { type ExecDeps } from '../exec/deps.js';
import { childEnv, Redactor, secretsFromEnv } from '../exec/redact.js';
import { JudgeCache } from '../judge/cache.js';
import { cacheInCheckout } from '../judge/cache-place.js';
import { type EndpointConfig } from '../judge/chat.js';
import { Judge, type JudgeOptions } from '../judge/judge.js';
import { AdaptiveLimiter } from '../exec/limiter.js';
import { DEFAULT_PRICES } from '../judge/pricing.js';
import { SpendMeter } from './budget.js';
import { ACTION_SETTINGS, type SettingNames } from '../core/setting-names.js';
import { Workspace } from '../core/workspace.js';
import { type RunnerDeps } from '../targets/providers.js';

export interface RunStats {
  judgeCalls: number;
  retries: number;
  repairs: number;
  rateLimited: number;
  timeouts: number;
  peakInFlight: number;
}

/** One judge per endpoint, sharing the run's limiter and cache; counts what they did. */
export class JudgePool {
  private readonly judges = new Map<string, Judge>();

  constructor(
    private readonly limiter: AdaptiveLimiter,
    private readonly options: Omit<JudgeOptions, 'limiter'>,
  ) {}

  /** The price table the judges estimate their spend with. */
  get prices(): JudgeOptions['prices'] {
    return this.options.prices;
  }

  for(endpoint: EndpointConfig): Judge {
    const key = JSON.stringify(endpoint);
    let j = this.judges.get(key);
    if (!j) {
      j = new Judge(endpoint, { ...this.options, limiter: this.limiter });
      this.judges.set(key, j);
    }
    return j;
  }

  /** Resolves when every answer cached this run is written (they are written in the background). */
  settle(): Promise<void> {
    return this.options.cache.settle();
  }

  /** One notice when cache entries failed authentication (not written with this judge's key: judged again), else null. */
  cacheNotice(ws: Workspace, names: SettingNames): string | null {
    const cache = this.options.cache;
    return cache.dir ? cache.rejectedNotice(ws.display(cache.dir), names) : null;
  }

  stats(): RunStats {
    const all = [...this.judges.values()];
    return {
      judgeCalls: all.reduce((s, j) => s + j.chat.stats.calls, 0),
      retries: all.reduce((s, j) => s + j.chat.stats.retries, 0),
      repairs: all.reduce((s, j) => s + j.stats.repairs, 0),
      rateLimited: all.reduce((s, j) => s + j.chat.stats.rateLimited, 0),
      timeouts: all.reduce((s, j) => s + j.chat.stats.timeouts, 0),
      peakInFlight: this.limiter.peak,
    };
  }
}

/** The machinery every stage shares: where files resolve, secrets, limits, judges, logging. */
export interface RunContext {
  ws: Workspace;
  redactor: Redactor;
  limiter: AdaptiveLimiter;
  exec: ExecDeps;
  judges: JudgePool;
  /** `budget-usd`: the run's estimated spend against its cap; null without a cap. */
  spend: SpendMeter | null;
  /** What target runners need (model calls share the judge's limiter). */
  runnerDeps: RunnerDeps;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal | undefined;
  /** How the user sets the judge's URL and keys, for messages that say what to fix. */
  settings: SettingNames;
  /** Logging goes through the redactor: a gate command may itself contain a secret. */
  warn(message: string): void;
  info(message: string): void;
  /** Tells the adapter a secret learnt during the run (the action masks it in the runner's log). */
  mask?(secret: string): void;
}

export function createRunContext(
  config: Config,
  io: {
    env: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    hooks?: { info?(m: string): void; warn?(m: string): void; mask?(secret: string): void };
    settings?: SettingNames;
  },
): RunContext {
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
  const warn = (m: string) => io.hooks?.warn?.(redactor.redact(m));
  const info = (m: string) => io.hooks?.info?.(redactor.redact(m));
  const cacheDir = config.cacheDir ? path.resolve(ws.root, config.cacheDir) : null;
  const cache = new JudgeCache(
    cacheDir,
    cacheDir ? config.cacheMode : 'off',
    !!cacheDir && cacheInCheckout(cacheDir, [ws.root, io.env.GITHUB_WORKSPACE]),
  );
  const prices = { ...DEFAULT_PRICES, ...config.judge.prices };
  const spend = config.budgetUsd ? new SpendMeter(config.budgetUsd, prices) : null;
  const judges = new JudgePool(limiter, {
    cache,
    prices,
    ...(spend ? { spend } : {}),
    signal: io.signal,
    warn,
    settings: io.settings,
    samples: config.judgeSamples,
  });
  const runnerDeps: RunnerDeps = {
    limiter,
    redactor,
    childEnv: exec.childEnv,
    modelTimeoutMs: config.judge.timeoutMs,
    commandTimeoutMs: config.gateTimeoutMs,
    signal: io.signal,
    warn,
    answerCache: cache,
  };
  return {
    ws,
    redactor,
    limiter,
    exec,
    judges,
    spend,
    runnerDeps,
    env: io.env,
    signal: io.signal,
    settings: io.settings ?? ACTION_SETTINGS,
    warn,
    info,
    mask: io.hooks?.mask,
  };
}
