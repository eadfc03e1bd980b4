import path from 'node:path';
import { z } from 'zod';
import { excerpt } from '../core/diagnostics.js';
import { LOCAL_CACHE_DIR } from '../judge/cache-place.js';
import { type PriceTable } from '../judge/pricing.js';
import { MAX_FIXED_SAMPLES, type SamplesSetting } from '../judge/sampling.js';
import { repeatInput } from './repeat-input.js';
import { type RepeatSetting } from '../core/repeat-setting.js';
import { parseShard, type ShardSpec } from './shard-spec.js';

/**
 * Every input of the action (action.yml, README "Inputs"), validated by this one schema. The CLI maps its flags
 * onto the same names, so both adapters hand the engine the same `Config`. Empty strings are
 * "not set" (that is what the runner gives for an input the workflow leaves out).
 */
const unset = (v: unknown) =>
  typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v;
const text = () => z.preprocess(unset, z.string().optional());
const choice = <T extends string>(name: string, values: readonly [T, ...T[]], fallback: T) =>
  z.preprocess(
    (v) => (typeof unset(v) === 'string' ? (unset(v) as string).toLowerCase() : unset(v)),
    z
      .enum(values, {
        error: (iss) => `${name}: must be one of ${values.join(', ')} (got '${excerpt(String(iss.input))}')`,
      })
      .default(fallback),
  );
const number = (name: string, fallback: number, opts: { int?: boolean; min: number; max: number }) =>
  z.preprocess(
    (v) => {
      const s = unset(v);
      return s === undefined ? undefined : Number(s);
    },
    z
      .number({ error: `${name}: must be a number` })
      .refine(
        (n) => Number.isFinite(n) && (!opts.int || Number.isInteger(n)) && n >= opts.min && n <= opts.max,
        {
          error: `${name}: must be ${opts.int ? 'an integer' : 'a number'} from ${opts.min} to ${opts.max}`,
        },
      )
      .default(fallback),
  );

/** `true` / `false` as a workflow writes them (YAML 1.2's core schema spellings); unset is false. */
const flag = (name: string) =>
  z.preprocess(
    (v) => {
      const s = unset(v);
      return typeof s === 'string' ? s.toLowerCase() : s;
    },
    z
      .enum(['true', 'false'], {
        error: (iss) => `${name}: must be true or false (got '${excerpt(String(iss.input))}')`,
      })
      .default('false')
      .transform((s) => s === 'true'),
  );

/** A number that may be left unset (then null): `min-pass-rate`, `budget-usd`. */
const optionalNumber = (name: string, opts: { min: number; max: number; exclusiveMin?: boolean }) =>
  z.preprocess(
    (v) => {
      const s = unset(v);
      if (typeof s !== 'string') return s;
      // `95%` reads as 0.95: how teams write a pass rate.
      const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(s);
      return pct ? Number(pct[1]) / 100 : Number(s.replace(/^\$/, ''));
    },
    z
      .number({ error: `${name}: must be a number` })
      .refine(
        (n) => Number.isFinite(n) && (opts.exclusiveMin ? n > opts.min : n >= opts.min) && n <= opts.max,
        {
          error: `${name}: must be a number ${opts.exclusiveMin ? 'above' : 'from'} ${opts.min} ${opts.exclusiveMin ? 'and at most' : 'to'} ${opts.max}`,
        },
      )
      .nullable()
      .default(null),
  );

/** The default `effect-margin`: a drop the team accepts, on the 0..1 scale (docs/effect.md). */
export const DEFAULT_EFFECT_MARGIN = 0.05;

export const FAIL_ON = [
  'fail',
  'borderline',
  'inconclusive',
  'regression',
  'never',
  'calibration',
  'effect',
] as const;
const COMMENT_MODES = ['update', 'new', 'off'] as const;
/** `all`: one job; `record` and `judge`: the trusted stage's two workflows (README "The trusted stage"). */
const STAGES = ['all', 'record', 'judge'] as const;

/** Where the results file goes and where the run starts, unless the inputs say otherwise. */
const DEFAULT_RESULTS_FILE = 'rubric-eval-results.json';
const DEFAULT_WORKING_DIRECTORY = '.';

/**
 * Where the results file goes when the inputs are invalid: where valid ones would have put it, as
 * far as they can be read, so the file that says why lands where the workflow looks for it.
 */
export function fallbackResultsFile(raw: Record<string, string>, workspace: string): string {
  return path.resolve(
    workspace,
    raw['working-directory'] || DEFAULT_WORKING_DIRECTORY,
    raw['results-file'] || DEFAULT_RESULTS_FILE,
  );
}

const InputsSchema = z
  .object({
    suites: text(),
    rubric: text(),
    targets: text(),
    target: text(),
    'judge-model': text(),
    'embedding-model': text(),
    'judge-base-url': z.preprocess(
      unset,
      z.url({ error: 'judge-base-url: must be an http(s) URL' }).optional(),
    ),
    'judge-api-key': text(),
    'github-token': text(),
    'answers-file': text(),
    // Unset: the adapter's default (`defaultCacheDir`: outside the checkout on a runner).
    'cache-dir': text(),
    'judge-timeout': number('judge-timeout', 120, { min: 1, max: 3600 }),
    concurrency: number('concurrency', 8, { int: true, min: 1, max: 256 }),
    'fail-on': choice('fail-on', FAIL_ON, 'fail'),
    comment: choice('comment', COMMENT_MODES, 'update'),
    'results-file': z.preprocess(unset, z.string().default(DEFAULT_RESULTS_FILE)),
    'gate-timeout': number('gate-timeout', 600, { min: 1, max: 6 * 3600 }),
    'working-directory': z.preprocess(unset, z.string().default(DEFAULT_WORKING_DIRECTORY)),
    'judge-prices': z.preprocess(
      unset,
      z
        .string()
        .transform((s, ctx) => {
          try {
            return PriceTableSchema.parse(JSON.parse(s));
          } catch {
            ctx.addIssue({
              code: 'custom',
              message:
                'judge-prices: must be JSON like {"model": {"input": 0.4, "output": 1.6}} (USD per million tokens)',
            });
            return z.NEVER;
          }
        })
        .optional(),
    ),
    'judge-samples': z.preprocess(
      (v) => {
        const s = unset(v);
        if (typeof s !== 'string') return s;
        if (s.toLowerCase() === 'auto') return 'auto';
        // Kept as written when it is not a count, so the message shows what was given.
        return /^\d+$/.test(s) ? Number(s) : s;
      },
      z
        .custom<SamplesSetting>(
          (v) =>
            v === 'auto' || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_FIXED_SAMPLES),
          {
            error: (iss) =>
              `judge-samples: must be an integer from 1 to ${MAX_FIXED_SAMPLES} or auto (got '${excerpt(String(iss.input))}')`,
          },
        )
        .default(1),
    ),
    'github-timeout': number('github-timeout', 30, { min: 1, max: 600 }),
    shard: z.preprocess(
      unset,
      z
        .string()
        .transform((s, ctx) => {
          const r = parseShard(s);
          if ('error' in r) {
            ctx.addIssue({ code: 'custom', message: r.error });
            return z.NEVER;
          }
          return r;
        })
        .optional(),
    ),
    merge: text(),
    baseline: z.preprocess(unset, z.string().default('auto')),
    'baseline-artifact': z.preprocess(unset, z.string().default('rubric-eval-results')),
    'regression-margin': number('regression-margin', 0.1, { min: 0, max: 1 }),
    'effect-margin': number('effect-margin', DEFAULT_EFFECT_MARGIN, { min: 0, max: 1 }),
    'junit-file': text(),
    'min-pass-rate': optionalNumber('min-pass-rate', { min: 0, max: 1 }),
    'budget-usd': optionalNumber('budget-usd', { min: 0, max: 1_000_000, exclusiveMin: true }),
    calibration: text(),
    'min-judge-agreement': z.preprocess(
      (v) => {
        const s = unset(v);
        return s === undefined || (typeof s === 'string' && s.toLowerCase() === 'off')
          ? undefined
          : Number(s);
      },
      z
        .number({ error: 'min-judge-agreement: must be a number from 0 to 1, or off' })
        .refine((n) => Number.isFinite(n) && n >= 0 && n <= 1, {
          error: 'min-judge-agreement: must be a number from 0 to 1 (a κ), or off',
        })
        .optional(),
    ),
    repeat: repeatInput('repeat'),
    'min-case-pass-rate': number('min-case-pass-rate', 0.8, { min: 0.01, max: 0.99 }),
    stage: choice('stage', STAGES, 'all'),
    'record-file': z.preprocess(unset, z.string().default('rubric-eval-record.json')),
    'status-context': z.preprocess(unset, z.string().max(100).default('rubric-eval')),
    'check-run': flag('check-run'),
    'report-html': text(),
  })
  .refine((i) => i.suites !== undefined || i.rubric !== undefined || i.merge !== undefined, {
    error:
      'set `suites` (eval suite globs) or `rubric` (a markdown rubric, a command, or `agent: <criterion>`), or `merge` (shard results files)',
  })
  .refine((i) => i.stage === 'all' || !i.merge, {
    error:
      "stage: record and judge take no `merge`: the judge stage reads every shard's record bundle from the record run and merges them itself",
  })
  .refine((i) => i.stage !== 'judge' || !i.shard, {
    error:
      "stage: judge takes no `shard`: give `shard` to the record matrix jobs; one judge job judges every shard's answers",
  })
  .refine((i) => !(i.shard && i.merge), {
    error:
      'merge: a merge runs nothing, so it takes no `shard`; give `shard` to the matrix jobs and `merge` to the job after them',
  });

const PriceTableSchema = z.record(
  z.string(),
  z.object({ input: z.number().min(0), output: z.number().min(0) }),
);

export type Inputs = z.output<typeof InputsSchema>;
export const INPUT_NAMES = Object.keys(InputsSchema.shape);

/** The engine's configuration: the inputs, plus what only the CLI sets. */
export interface Config {
  workingDirectory: string;
  suites: string[];
  rubric: string | null;
  targets: string | null;
  target: string | null;
  answersFile: string | null;
  judge: {
    model: string | null;
    /** promptfoo `similar`: the embeddings model at the judge's endpoint (default per endpoint). */
    embeddingModel?: string | null;
    baseURL: string | null;
    apiKey: string | null;
    githubToken: string | null;
    timeoutMs: number;
    prices: PriceTable;
  };
  cacheDir: string | null;
  /** `replay`: answers only from the cache (the offline demo's recorded judge). */
  cacheMode: 'readwrite' | 'replay' | 'off';
  concurrency: number;
  failOn: (typeof FAIL_ON)[number];
  gateTimeoutMs: number;
  resultsFile: string;
  /** CLI only: judge this diff file instead of asking git or GitHub. */
  diffFile: string | null;
  /** CLI only: the base ref for `git diff` (default: the upstream's default branch). */
  baseRef: string | null;
  /** Judge samples per llm_judge evaluator (README "Judge samples"): 1..9, or `auto`. */
  judgeSamples: SamplesSetting;
  /** `shard: i/n`: run only this shard's cases. */
  shard?: ShardSpec | null;
  /** `merge`: globs of shard results files to merge instead of running anything. */
  merge?: string[];
  /** What each case is compared with: the base branch's results (`auto`), a file, or nothing. */
  baseline: BaselineConfig;
  /** `effect-margin`: the drop in the suite's mean the effect accepts as non-inferior (default 0.05). */
  effectMargin?: number;
  /** `junit-file`: where the JUnit XML report goes (relative to the working directory); null: none. */
  junitFile?: string | null;
  /** `min-pass-rate`: the share of cases that must pass, per suite and overall; null: every case must. */
  minPassRate?: number | null;
  /** `budget-usd`: the run's estimated spend cap (judge and targets); null: no cap. */
  budgetUsd?: number | null;
  /**
   * Set by the action on a pull request from a fork without a judge key: cases that need the judge
   * are skipped (the trusted stage judges them) instead of each erroring.
   */
  untrustedFork?: boolean;
  /** Judge calibration: the labels file and `min-judge-agreement` (null: off). */
  calibration?: { file: string; floor: number | null } | null;
  /** Answers per case (README "Repeats"): 1..20 or `auto`; null: each suite's `repeat`, else 1. */
  repeat?: RepeatSetting | null;
  /** The pass rate a repeated case must be shown to reach. */
  minCasePassRate?: number;
  /** `record`: answers and gates into a bundle, no judge; `judge`: a bundle judged with this checkout's suites. */
  stage?: (typeof STAGES)[number];
  /** Where `record` writes its bundle (`record-file`). */
  recordFile?: string;
  /** `report-html`: where the self-contained HTML report goes (relative to the working directory); null: none. */
  reportHtml?: string | null;
}

/** `auto`: the adapter finds the base branch's artifact; `file`: a results file; `off`. */
export type BaselineConfig =
  | { mode: 'auto'; artifact: string; margin: number }
  | { mode: 'file'; path: string; margin: number }
  | { mode: 'off'; margin: number };

function baselineConfig(value: string, artifact: string, margin: number): BaselineConfig {
  const v = value.trim();
  if (v.toLowerCase() === 'auto') return { mode: 'auto', artifact, margin };
  if (v.toLowerCase() === 'off' || v === '') return { mode: 'off', margin };
  return { mode: 'file', path: v, margin };
}

export function parseInputs(
  raw: Record<string, string | undefined>,
): { inputs: Inputs } | { errors: string[] } {
  const r = InputsSchema.safeParse(raw);
  if (r.success) return { inputs: r.data };
  return {
    errors: r.error.issues.map((i) =>
      i.message.includes(':') || i.path.length === 0 ? i.message : `${String(i.path[0])}: ${i.message}`,
    ),
  };
}

/** Splits the `suites` input: newline- or comma-separated globs. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('#'));
}

/**
 * The engine's Config from validated inputs: the one mapping both adapters use. `extra` carries
 * what only one adapter decides (where things resolve, the CLI's replay and diff options).
 */
export function configFromInputs(
  i: Inputs,
  extra: Pick<Config, 'workingDirectory' | 'resultsFile'> &
    Partial<Pick<Config, 'cacheDir' | 'cacheMode' | 'diffFile' | 'baseRef' | 'baseline'>> & {
      judge?: Partial<Config['judge']>;
    },
): Config {
  return {
    workingDirectory: extra.workingDirectory,
    suites: splitList(i.suites),
    rubric: i.rubric ?? null,
    targets: i.targets ?? null,
    target: i.target ?? null,
    answersFile: i['answers-file'] ?? null,
    judge: {
      model: i['judge-model'] ?? null,
      embeddingModel: i['embedding-model'] ?? null,
      baseURL: i['judge-base-url'] ?? null,
      apiKey: i['judge-api-key'] ?? null,
      githubToken: i['github-token'] ?? null,
      timeoutMs: i['judge-timeout'] * 1000,
      prices: i['judge-prices'] ?? {},
      ...extra.judge,
    },
    cacheDir: extra.cacheDir !== undefined ? extra.cacheDir : (i['cache-dir'] ?? LOCAL_CACHE_DIR),
    cacheMode: extra.cacheMode ?? 'readwrite',
    concurrency: i.concurrency,
    failOn: i['fail-on'],
    gateTimeoutMs: i['gate-timeout'] * 1000,
    resultsFile: extra.resultsFile,
    diffFile: extra.diffFile ?? null,
    baseRef: extra.baseRef ?? null,
    judgeSamples: i['judge-samples'],
    shard: i.shard ?? null,
    merge: splitList(i.merge),
    baseline: extra.baseline ?? baselineConfig(i.baseline, i['baseline-artifact'], i['regression-margin']),
    effectMargin: i['effect-margin'],
    junitFile: i['junit-file'] ?? null,
    minPassRate: i['min-pass-rate'],
    budgetUsd: i['budget-usd'],
    calibration: i.calibration ? { file: i.calibration, floor: i['min-judge-agreement'] ?? null } : null,
    repeat: i.repeat ?? null,
    minCasePassRate: i['min-case-pass-rate'],
    stage: i.stage,
    recordFile: path.resolve(extra.workingDirectory, i['record-file']),
    reportHtml: i['report-html'] ?? null,
  };
}
