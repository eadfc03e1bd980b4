import path from 'node:path';
import { z } from 'zod';
import { type Diagnostic, DiagnosticSink, type Position } from '../core/diagnostics.js';
import { readUserFile } from '../core/user-file.js';
import { type Workspace } from '../core/workspace.js';
import { checkUnknownKeys } from '../core/unknown-keys.js';
import { parseYamlSource, type SourceDocument } from '../core/yaml-source.js';
import { reportZodIssues } from '../core/zod-diagnostics.js';
import { HEALTHCHECK_KEYS, PROVIDER_KEYS } from './providers.js';

export const SUPPORTED_PROVIDERS = ['mock', 'echo', 'cli', 'openai', 'azure', 'azure-openai'] as const;

const TargetEntrySchema = z.looseObject({
  name: z.string({ error: 'name must be a string' }).min(1),
  provider: z.string({ error: 'provider must be a string' }).min(1),
  judge_target: z.string().optional(),
});
const TargetsFileSchema = z.looseObject({
  targets: z.array(TargetEntrySchema, { error: 'targets must be a list of {name, provider, ...}' }),
});

/** A target as written: resolved (env, provider checks) only when a run actually uses it. */
export interface TargetDefinition {
  name: string;
  provider: string;
  /** The judge the file names (ignored with a warning: the run's judge is the workflow's). */
  judgeTarget: string | null;
  /** The key that named it, when not `judge_target` (AgentV 5's `grader_target`). */
  judgeKey?: string;
  /** Keys as written, `${{ VAR }}` references unresolved. */
  settings: Record<string, unknown>;
  /** Absolute path of the targets file, and its display form. */
  file: string;
  display: string;
  pos: Position;
  locate(key: string): Position;
}

export interface TargetsFile {
  file: string;
  display: string;
  targets: Map<string, TargetDefinition>;
}

/** Loads a targets.yaml. Unknown providers are not rejected here: only targets a run uses are. */
export function loadTargetsFile(
  absPath: string,
  ws: Workspace,
): { file: TargetsFile | undefined; diagnostics: Diagnostic[] } {
  const display = ws.display(absPath);
  const sink = new DiagnosticSink(display);
  // The `targets` input is a path like `rubric` and `answers-file`: inside the workspace only.
  const text = readUserFile(absPath, ws, 'targets file', sink);
  if (text === undefined) return { file: undefined, diagnostics: sink.items };
  const doc = parseYamlSource(text, sink);
  if (!doc) return { file: undefined, diagnostics: sink.items };
  const parsed = TargetsFileSchema.safeParse(doc.value);
  if (!parsed.success) {
    reportZodIssues(parsed.error, doc.value, doc, sink);
    return { file: undefined, diagnostics: sink.items };
  }
  const targets = new Map<string, TargetDefinition>();
  parsed.data.targets.forEach((t, i) => {
    if (targets.has(t.name)) {
      sink.error(doc.locate(['targets', i, 'name']), 'duplicate-name', `target '${t.name}' is defined twice`);
      return;
    }
    checkTargetKeys(t, i, doc, sink);
    targets.set(t.name, {
      name: t.name,
      provider: t.provider,
      judgeTarget: t.judge_target ?? null,
      settings: t as Record<string, unknown>,
      file: absPath,
      display,
      // A getter: the exact position needs the `yaml` document parse, which only a problem with
      // this target should pay for (it is ~30 ms on every run's critical path otherwise).
      get pos() {
        return doc.locate(['targets', i]);
      },
      locate: (key) => doc.locate(['targets', i, key]),
    });
  });
  return { file: sink.hasErrors ? undefined : { file: absPath, display, targets }, diagnostics: sink.items };
}

const COMMON_TARGET_KEYS = Object.keys(TargetEntrySchema.shape);

/**
 * Unknown keys of a target of a supported provider (another provider's keys are its own business:
 * such a target is refused if a run uses it). A near miss of a known key is an error.
 */
function checkTargetKeys(
  t: Record<string, unknown> & { name: string; provider: string },
  i: number,
  doc: SourceDocument,
  sink: DiagnosticSink,
): void {
  const own = PROVIDER_KEYS[t.provider];
  if (!own) return;
  const subject = `target '${t.name}'`;
  checkUnknownKeys(t, new Set([...COMMON_TARGET_KEYS, ...own]), {
    sink,
    locateKey: (key) => doc.locateKey(['targets', i, key]),
    subject,
  });
  const hc = t.healthcheck;
  if (hc && typeof hc === 'object' && !Array.isArray(hc))
    checkUnknownKeys(hc as Record<string, unknown>, HEALTHCHECK_KEYS, {
      sink,
      locateKey: (key) => doc.locateKey(['targets', i, 'healthcheck', key]),
      subject,
    });
}

/** The nearest `targets.yaml` or `.agentv/targets.yaml` from `fromDir` up to the workspace root. */
export function findTargetsFile(fromDir: string, ws: Workspace): string | null {
  let dir = path.resolve(fromDir);
  for (;;) {
    for (const candidate of [path.join(dir, 'targets.yaml'), path.join(dir, '.agentv', 'targets.yaml')]) {
      // A link out of the workspace is found, then refused by the reader, naming it.
      if (ws.has(candidate) && !ws.isDirectory(candidate)) return candidate;
    }
    if (dir === ws.root) return null;
    const parent = path.dirname(dir);
    if (parent === dir || !ws.contains(parent)) return null;
    dir = parent;
  }
}

const ENV_REF = /^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/**
 * Resolves `${{ VAR }}` values (a whole value, as AgentV writes them) from `env`: the environment a
 * gate's process gets, never the action's own (see `childEnv`). Missing variables are reported by
 * name; the caller fails the run before any call. `resolved` lists every value read, each a
 * secret for redaction.
 */
export function resolveEnvRefs(
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { values: Record<string, unknown>; missing: { key: string; variable: string }[]; resolved: string[] } {
  const values: Record<string, unknown> = {};
  const missing: { key: string; variable: string }[] = [];
  const resolved: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (typeof value === 'string') {
      const m = ENV_REF.exec(value.trim());
      if (m) {
        const v = env[m[1]!];
        if (v === undefined || v === '') missing.push({ key, variable: m[1]! });
        else {
          values[key] = v;
          resolved.push(v);
        }
        continue;
      }
    }
    if (key === 'healthcheck' && value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = resolveEnvRefs(value as Record<string, unknown>, env);
      values[key] = inner.values;
      resolved.push(...inner.resolved);
      missing.push(...inner.missing.map((m) => ({ key: `healthcheck.${m.key}`, variable: m.variable })));
      continue;
    }
    values[key] = value;
  }
  return { values, missing, resolved };
}
