import { type ProviderEntry } from '../suite/agentv5/provider-catalog.js';
import { type TargetDefinition, type TargetsFile } from './targets-file.js';

/** AgentV 5's mock answer when a `mock` provider sets no `response` (its own default). */
const AGENTV_MOCK_RESPONSE =
  '{"answer":"Mock provider response. Configure targets.yaml to supply a custom value."}';

const ENV = /^\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** `{{ env.X }}` (AgentV 5) as the `${{ X }}` the targets resolver reads; other values as they are. */
function envRef(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = ENV.exec(v.trim());
  return m ? `\${{ ${m[1]} }}` : v;
}

/** An argv list as one command line, each word quoted only when it needs it. */
function commandLine(v: unknown): unknown {
  if (!Array.isArray(v)) return envRef(v);
  return v
    .map((w) => String(envRef(w)))
    .map((w) => (/^[\w@%+=:,./{}$-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

/**
 * AgentV 5 providers (a `.agentv/` catalog and a suite's inline ones) as the targets file the
 * run plans from: `label` is the target name, `grader_target` its judge, `command` a cli
 * target's command template, `{{ env.X }}` an environment reference.
 */
export function providerTargets(
  entries: readonly ProviderEntry[],
  display: string,
  file: string,
): TargetsFile {
  const targets = new Map<string, TargetDefinition>();
  for (const e of entries) {
    const name = e.label ?? e.kind;
    if (targets.has(name)) continue; // the nearest definition wins (inline before the catalog)
    const { id: _id, provider: _p, label: _l, command, grader_target: grader, config, ...rest } = e.raw;
    const settings: Record<string, unknown> = {};
    const nested = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
    for (const [k, v] of Object.entries({ ...rest, ...nested })) settings[k] = envRef(v);
    if (command !== undefined) settings.command_template = commandLine(command);
    if (e.kind === 'mock' && settings.response === undefined) settings.response = AGENTV_MOCK_RESPONSE;
    const hc = settings.healthcheck;
    if (typeof hc === 'object' && hc !== null && 'command' in hc) {
      const { command: hcCommand, ...hcRest } = hc as Record<string, unknown>;
      settings.healthcheck = { ...hcRest, command_template: commandLine(hcCommand) };
    }
    targets.set(name, {
      name,
      provider: e.kind,
      // Kept only to say it is ignored: the judge is the action's (judge inputs), one per run.
      judgeTarget: typeof grader === 'string' && grader ? grader : null,
      judgeKey: 'grader_target',
      settings: { ...settings, provider: e.kind },
      file: e.absPath,
      display: e.display,
      pos: e.pos,
      locate: () => e.pos,
    });
  }
  return { file, display, targets };
}
