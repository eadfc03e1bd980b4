import path from 'node:path';
import { type z } from 'zod';
import { type Diagnostic } from '../core/diagnostics.js';
import { didYouMean } from '../core/did-you-mean.js';
import { type EndpointConfig, OPENAI_URL, type ToolParams } from '../judge/chat.js';
import { isWithheldName } from '../exec/redact.js';
import { type EvalCase, type EvalSuite } from '../suite/types.js';
import { type Workspace } from '../core/workspace.js';
import { providerTargets } from './agentv-providers.js';
import { batchCliRunner } from './cli-batch.js';
import {
  AZURE_DEFAULT_API_VERSION,
  AzureSettings,
  CliSettings,
  cliRunner,
  MockSettings,
  mockRunner,
  echoRunner,
  modelRunner,
  OpenAISettings,
  type RunnerDeps,
  type TargetRunner,
} from './providers.js';
import {
  findTargetsFile,
  loadTargetsFile,
  resolveEnvRefs,
  SUPPORTED_PROVIDERS,
  type TargetDefinition,
  type TargetsFile,
} from './targets-file.js';

export interface CaseTarget {
  runner: TargetRunner;
  /**
   * The target as written (provider and settings, `${{ VAR }}` unresolved), for the definition
   * hash: a redefined target is not the same case. Null for recorded answers.
   */
  definition: Record<string, unknown> | null;
}

export interface TargetPlan {
  /** The target of a loaded case (the case object the plan was made from). */
  forCase(c: EvalCase): CaseTarget;
  runners: TargetRunner[];
}

export interface PlanOptions {
  ws: Workspace;
  /** The `targets` input: one file for every suite. */
  targetsFile: string | null;
  /** The `target` input: overrides every suite's and case's choice. */
  targetOverride: string | null;
  /** Recorded answers used instead of any target. */
  answers: TargetRunner | null;
  /** What `${{ VAR }}` reads: the environment a gate gets (`childEnv`), never the action's own. */
  env: NodeJS.ProcessEnv;
  /** The action's own environment: only to say that a variable is withheld rather than unset. */
  processEnv?: NodeJS.ProcessEnv;
  /** Every value a template resolved to: a secret from then on. */
  onSecret?(value: string): void;
  deps: RunnerDeps;
  /**
   * An unset `${{ VAR }}` fails a run; `validate`, which may run where secrets are not set, only
   * warns and checks the rest of the target with a placeholder.
   */
  unsetEnv?: 'error' | 'warning';
}

/**
 * Decides, before any call, which target answers each case: input `target`, then the case's
 * `execution.target`, the suite's, then `default`. Only targets a run uses are resolved, so a
 * targets.yaml listing providers this CI does not use (and whose variables it does not set) is
 * fine; a used target with a missing variable or an unsupported provider fails the run here.
 */
export function planTargets(
  suites: readonly EvalSuite[],
  opts: PlanOptions,
): { plan: TargetPlan | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  if (opts.answers) {
    const answers = opts.answers;
    const target = { runner: answers, definition: null };
    return { plan: { forCase: () => target, runners: [answers] }, diagnostics };
  }
  const files = new Map<string, TargetsFile | null>();
  const resolved = new Map<string, CaseTarget | null>();
  // By the loaded case itself: a key built from path and id would be built again on every lookup.
  const assignments = new Map<EvalCase, CaseTarget>();

  const load = (abs: string): TargetsFile | null => {
    if (!files.has(abs)) {
      const r = loadTargetsFile(abs, opts.ws);
      diagnostics.push(...r.diagnostics);
      files.set(abs, r.file ?? null);
    }
    return files.get(abs) ?? null;
  };
  const fileFor = (suite: EvalSuite): TargetsFile | null => {
    const nearest = opts.targetsFile ? null : findTargetsFile(path.dirname(suite.absPath), opts.ws);
    if (!opts.targetsFile && suite.providers) {
      // The suite's own providers, and beside them the nearest targets.yaml's (`--target default`).
      const own = providerTargets(suite.providers, suite.path, suite.absPath);
      const near = nearest ? load(nearest) : null;
      return near ? withTargetsOf(own, near) : own;
    }
    const abs = opts.targetsFile ?? nearest;
    return abs ? load(abs) : null;
  };

  // A name the suite or the override gives every case is reported once, not once per case.
  const unknownShared = new Set<string>();
  for (const suite of suites) {
    const file = fileFor(suite);
    for (const c of suite.cases) {
      const name = opts.targetOverride ?? c.target ?? suite.target ?? 'default';
      const from =
        opts.targetOverride !== null
          ? 'target'
          : c.target !== null
            ? null
            : suite.target !== null
              ? 'execution.target'
              : 'the default target';
      const at = { file: suite.path, line: c.pos.line, column: c.pos.column };
      if (!file) {
        diagnostics.push({
          severity: 'error',
          ...at,
          rule: 'no-targets',
          subject: `case '${c.id}'`,
          message: opts.targetsFile
            ? `targets file could not be loaded`
            : `no targets.yaml or .agentv/targets.yaml found from ${opts.ws.display(path.dirname(suite.absPath))} up to the workspace root; set the \`targets\` input or give recorded answers with \`answers-file\``,
        });
        continue;
      }
      const def = file.targets.get(name);
      if (!def) {
        const once = `${suite.path}\0${file.file}\0${name}`;
        if (from && unknownShared.has(once)) continue;
        if (from) unknownShared.add(once);
        diagnostics.push({
          severity: 'error',
          ...at,
          rule: 'unknown-target',
          subject: from
            ? `${from} (${suite.cases.length === 1 ? '1 case' : `${suite.cases.length} cases`})`
            : `case '${c.id}'`,
          message: `target '${name}' is not defined in ${file.display}${hint(name, file.targets.keys())} (defined: ${[...file.targets.keys()].join(', ')})`,
        });
        continue;
      }
      const key = `${file.file}\0${name}`;
      if (!resolved.has(key)) resolved.set(key, resolveTarget(def, opts, diagnostics));
      const target = resolved.get(key);
      if (target) {
        assignments.set(c, target);
        target.runner.enlist?.(c);
      }
    }
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { plan: undefined, diagnostics };
  const runners = [
    ...new Set([...resolved.values()].filter((t): t is CaseTarget => t !== null).map((t) => t.runner)),
  ];
  return {
    plan: {
      forCase: (c) => assignments.get(c)!,
      runners,
    },
    diagnostics,
  };
}

/** A suite's provider targets, then the nearest targets file's that the suite does not define. */
function withTargetsOf(own: TargetsFile, near: TargetsFile): TargetsFile {
  const targets = new Map(own.targets);
  for (const [name, def] of near.targets) if (!targets.has(name)) targets.set(name, def);
  return { ...own, display: `${own.display} or ${near.display}`, targets };
}

function resolveTarget(
  def: TargetDefinition,
  opts: PlanOptions,
  diagnostics: Diagnostic[],
): CaseTarget | null {
  // One judge per run, the workflow's: a targets file is the pull request's to edit, so it never
  // picks the model (or the endpoint, or the key) that grades it.
  if (def.judgeTarget) diagnostics.push(judgeTargetIgnored(def));
  const runner = createRunner(def, opts, diagnostics);
  return runner ? { runner, definition: targetDefinition(def) } : null;
}

function judgeTargetIgnored(def: TargetDefinition): Diagnostic {
  const key = def.judgeKey ?? 'judge_target';
  return {
    ...problem(
      def,
      key,
      'judge-target-ignored',
      `${key} '${def.judgeTarget}' is ignored: every case is judged by the workflow's judge (the judge inputs), never by a model the checkout names`,
    ),
    severity: 'warning',
  };
}

/**
 * What of a target decides its answers: everything written but its name, judge and healthcheck.
 * A mock's responses are left out: they are answers (as an answers file's lines are), and a
 * changed answer is what a comparison is for, not a redefined case.
 */
function targetDefinition(def: TargetDefinition): Record<string, unknown> {
  const left = new Set(['name', 'judge_target', 'healthcheck']);
  if (def.provider === 'mock') for (const k of ['response', 'responses']) left.add(k);
  const entries = Object.entries({ ...def.settings, provider: def.provider }).filter(([k]) => !left.has(k));
  // Keys sorted once here: every case's definition hash then writes it without reordering.
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function hint(name: string, known: Iterable<string>): string {
  const near = didYouMean(name, known);
  return near ? `; did you mean '${near}'?` : '';
}

function problem(def: TargetDefinition, key: string | null, rule: string, message: string): Diagnostic {
  const pos = key ? def.locate(key) : def.pos;
  return { severity: 'error', file: def.display, ...pos, rule, message, subject: `target '${def.name}'` };
}

function settingsOf(
  def: TargetDefinition,
  opts: PlanOptions,
  diagnostics: Diagnostic[],
): Record<string, unknown> | null {
  const { values, missing: all, resolved } = resolveEnvRefs(def.settings, opts.env);
  for (const v of resolved) opts.onSecret?.(v);
  // Withheld (a token, an input, the judge key): no run will ever see it, so an error even in validate.
  const isWithheld = (v: string) => isWithheldName(v) || !!opts.processEnv?.[v];
  const withheld = all.filter((m) => isWithheld(m.variable));
  const missing = all.filter((m) => !isWithheld(m.variable));
  for (const m of withheld)
    diagnostics.push(
      problem(
        def,
        m.key.split('.')[0]!,
        'withheld-env',
        `environment variable ${m.variable} (for '${m.key}') is withheld from targets: a template sees only what a gate's process gets (no GitHub token, judge key, INPUT_* or ACTIONS_* variable); give the target a variable of its own`,
      ),
    );
  const warnOnly = opts.unsetEnv === 'warning';
  if (warnOnly && missing.length > 0) {
    // Where secrets are not set (validate): one warning per target, the rest checked with placeholders.
    const names = [...new Set(missing.map((m) => m.variable))];
    const d = problem(
      def,
      missing[0]!.key.split('.')[0]!,
      'missing-env',
      `environment variable${names.length === 1 ? '' : 's'} ${names.join(', ')} not set here; a run needs ${names.length === 1 ? 'it' : 'them'}`,
    );
    diagnostics.push({ ...d, severity: 'warning' });
    for (const m of missing) if (!m.key.includes('.')) values[m.key] = `\${{ ${m.variable} }}`;
  }
  for (const m of warnOnly ? [] : missing)
    diagnostics.push(
      problem(
        def,
        m.key.split('.')[0]!,
        'missing-env',
        `environment variable ${m.variable} (for '${m.key}') is not set`,
      ),
    );
  return withheld.length > 0 || (missing.length > 0 && !warnOnly) ? null : values;
}

function validated<S extends z.ZodType>(
  schema: S,
  values: unknown,
  def: TargetDefinition,
  diagnostics: Diagnostic[],
): z.infer<S> | null {
  const r = schema.safeParse(values);
  if (r.success) return r.data;
  for (const issue of r.error.issues)
    diagnostics.push(
      problem(
        def,
        typeof issue.path[0] === 'string' ? issue.path[0] : null,
        'target-settings',
        issue.message,
      ),
    );
  return null;
}

function unsupported(def: TargetDefinition): Diagnostic {
  return problem(
    def,
    'provider',
    'unsupported-provider',
    `provider '${def.provider}' is not supported by rubric-eval${hint(def.provider, SUPPORTED_PROVIDERS)} (supported: ${SUPPORTED_PROVIDERS.join(', ')}); produce the answers in an earlier step and pass them with \`answers-file\`, or use a cli target`,
  );
}

function createRunner(
  def: TargetDefinition,
  opts: PlanOptions,
  diagnostics: Diagnostic[],
): TargetRunner | null {
  if (!(SUPPORTED_PROVIDERS as readonly string[]).includes(def.provider)) {
    diagnostics.push(unsupported(def));
    return null;
  }
  const values = settingsOf(def, opts, diagnostics);
  if (!values) return null;
  switch (def.provider) {
    case 'mock': {
      const s = validated(MockSettings, values, def, diagnostics);
      return s ? mockRunner(def.name, s) : null;
    }
    case 'echo':
      return echoRunner(def.name);
    case 'cli': {
      const s = validated(CliSettings, values, def, diagnostics);
      if (!s) return null;
      const make = s.provider_batching ? batchCliRunner : cliRunner;
      return make(def.name, s, path.dirname(def.file), opts.deps);
    }
    default: {
      const endpoint = endpointFromValues(def, values, opts, diagnostics);
      if (!endpoint) return null;
      const extra = values as { temperature?: number; max_output_tokens?: number };
      const tools = def.provider === 'openai' ? toolParams(values) : undefined;
      return modelRunner(
        def.name,
        def.provider === 'openai' ? 'openai' : 'azure',
        endpoint,
        { temperature: extra.temperature, maxTokens: extra.max_output_tokens, ...(tools ? { tools } : {}) },
        opts.deps,
      );
    }
  }
}

function endpointFor(
  def: TargetDefinition,
  opts: PlanOptions,
  diagnostics: Diagnostic[],
): EndpointConfig | null {
  if (!['openai', 'azure', 'azure-openai'].includes(def.provider)) {
    diagnostics.push(
      problem(
        def,
        'provider',
        'unsupported-provider',
        `a judge_target must be an openai or azure target, not '${def.provider}'`,
      ),
    );
    return null;
  }
  const values = settingsOf(def, opts, diagnostics);
  return values ? endpointFromValues(def, values, opts, diagnostics) : null;
}

function endpointFromValues(
  def: TargetDefinition,
  values: Record<string, unknown>,
  opts: PlanOptions,
  diagnostics: Diagnostic[],
): EndpointConfig | null {
  if (def.provider === 'openai') {
    const s = validated(OpenAISettings, values, def, diagnostics);
    if (!s) return null;
    // promptfoo's OPENAI_BASE_URL / OPENAI_API_BASE_URL, from the environment a gate would get.
    const fromEnv = (s.base_url_env ?? []).map((v) => opts.env[v]).find((v) => v !== undefined && v !== '');
    if (fromEnv) opts.onSecret?.(fromEnv);
    return {
      baseURL: s.endpoint ?? s.base_url ?? fromEnv ?? OPENAI_URL,
      apiKey: s.api_key,
      model: s.model,
      azure: null,
      timeoutMs: opts.deps.modelTimeoutMs,
      ...(s.api === 'responses' ? { api: 'responses' as const } : {}),
    };
  }
  const s = validated(AzureSettings, values, def, diagnostics);
  if (!s) return null;
  const deployment = (s.deployment ?? s.model)!;
  return {
    baseURL: s.endpoint,
    apiKey: s.api_key,
    model: deployment,
    azure: { endpoint: s.endpoint, deployment, apiVersion: s.version ?? AZURE_DEFAULT_API_VERSION },
    timeoutMs: opts.deps.modelTimeoutMs,
  };
}

/** The model endpoint of a named openai/azure target (for `generate rubrics --target`). */
export function endpointOfTarget(
  def: TargetDefinition,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): { endpoint: EndpointConfig | null; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const opts = { env, deps: { modelTimeoutMs: timeoutMs } } as unknown as PlanOptions;
  return { endpoint: endpointFor(def, opts, diagnostics), diagnostics };
}

/** An openai target's tool settings (validated with its other settings), as the request sends them. */
function toolParams(values: Record<string, unknown>): ToolParams | undefined {
  const keys = ['tools', 'tool_choice', 'functions', 'function_call'] as const;
  const given = keys.filter((k) => values[k] !== undefined);
  return given.length > 0 ? Object.fromEntries(given.map((k) => [k, values[k]])) : undefined;
}
