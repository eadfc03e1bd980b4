import path from 'node:path';
import { DiagnosticSink, type Position } from '../../core/diagnostics.js';
import { type Workspace } from '../../core/workspace.js';
import { parseYamlSource } from '../../core/yaml-source.js';
import { FileReadRefused } from '../../core/checkout-read.js';
import { isRecord } from '../../core/is-record.js';

/** Provider kinds this project runs: model providers become `openai`/`azure` targets, `cli` a command target. */
export const RUNNABLE_PROVIDERS = ['openai', 'azure', 'cli', 'mock', 'echo'] as const;

export interface ProviderEntry {
  label: string | null;
  /** AgentV's provider id (`azure`, `cli`, `copilot-cli`, ...), namespace prefix removed. */
  kind: string;
  raw: Record<string, unknown>;
  /** Where it is defined: a catalog file, or the suite for an inline provider (relative `cwd` resolves from its folder). */
  absPath: string;
  display: string;
  pos: Position;
}

export interface ProviderCatalog {
  /** The `.agentv/` folder it came from (display path), or null when none was found. */
  dir: string | null;
  entries: ProviderEntry[];
  /** `defaults.provider` of `.agentv/config.yaml`, else AgentV's convention `default`. */
  defaultLabel: string;
}

/** `agentv:codex-cli`, `openai:codex-sdk`: the part after the namespace is the kind AgentV runs. */
export function providerEntry(
  raw: Record<string, unknown>,
  absPath: string,
  display: string,
  pos: Position = { line: 1, column: 1 },
): ProviderEntry | null {
  const id = raw.id ?? raw.provider;
  if (typeof id !== 'string') return null;
  return {
    label: typeof raw.label === 'string' ? raw.label : null,
    kind: id.includes(':') ? id.slice(id.lastIndexOf(':') + 1) : id,
    raw,
    absPath,
    display,
    pos,
  };
}

/** How a catalog reader tells that a file was refused (a link out of the workspace, too large, ...). */
export type Refused = (rule: string, message: string) => void;

/** A providers file: a list, or `{providers: [...]}`; each entry located in it. */
export function readProviderList(abs: string, ws: Workspace, refused: Refused): ProviderEntry[] {
  const display = ws.display(abs);
  const doc = readYamlDoc(abs, ws, refused);
  const v = doc?.value;
  const base = Array.isArray(v) ? [] : ['providers'];
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.providers) ? v.providers : [];
  return list.flatMap((r, i) =>
    isRecord(r) ? (providerEntry(r, abs, display, doc!.position([...base, i])) ?? []) : [],
  );
}

/** A catalog file through the checkout's one reader: a refusal is told, a YAML problem is no catalog. */
function readYamlDoc(abs: string, ws: Workspace, refused: Refused): ReturnType<typeof parseYamlSource> {
  let text: string;
  try {
    text = ws.readText(abs);
  } catch (err) {
    refused(
      err instanceof FileReadRefused ? err.rule : 'missing-file',
      `${ws.display(abs)}: ${(err as Error).message}`,
    );
    return undefined;
  }
  try {
    return parseYamlSource(text, new DiagnosticSink(ws.display(abs)));
  } catch {
    return undefined;
  }
}

/**
 * The nearest `.agentv/` catalog walking up from the suite's folder to the workspace root, as
 * AgentV finds it: `config.yaml` (its `providers` inline or `file://`, its `defaults.provider`)
 * and `providers.yaml`. A catalog file the checkout's reader refuses (a link out of the
 * workspace, say) is told to `refused` and read as absent.
 */
export function findProviderCatalog(fromDir: string, ws: Workspace, refused: Refused): ProviderCatalog {
  let dir = path.resolve(fromDir);
  for (;;) {
    const agentv = path.join(dir, '.agentv');
    const config = path.join(agentv, 'config.yaml');
    const providers = path.join(agentv, 'providers.yaml');
    if (ws.contains(agentv) && (ws.has(config) || ws.has(providers)))
      return readCatalog(agentv, config, providers, ws, refused);
    if (dir === ws.root) break;
    const parent = path.dirname(dir);
    if (parent === dir || !ws.contains(parent)) break;
    dir = parent;
  }
  return { dir: null, entries: [], defaultLabel: 'default' };
}

function readCatalog(
  agentv: string,
  config: string,
  providers: string,
  ws: Workspace,
  refused: Refused,
): ProviderCatalog {
  const entries: ProviderEntry[] = [];
  let defaultLabel = 'default';
  const cfg = ws.has(config) ? readYamlDoc(config, ws, refused)?.value : undefined;
  if (isRecord(cfg)) {
    if (isRecord(cfg.defaults) && typeof cfg.defaults.provider === 'string')
      defaultLabel = cfg.defaults.provider;
    const p = cfg.providers;
    if (typeof p === 'string' && p.startsWith('file://')) {
      const abs = path.resolve(agentv, p.slice('file://'.length));
      if (ws.has(abs)) entries.push(...readProviderList(abs, ws, refused));
    } else if (Array.isArray(p))
      entries.push(...p.filter(isRecord).flatMap((r) => providerEntry(r, config, ws.display(config)) ?? []));
  }
  if (ws.has(providers) && !entries.length) entries.push(...readProviderList(providers, ws, refused));
  return { dir: ws.display(agentv), entries, defaultLabel };
}

export const isRunnable = (kind: string): boolean => (RUNNABLE_PROVIDERS as readonly string[]).includes(kind);
