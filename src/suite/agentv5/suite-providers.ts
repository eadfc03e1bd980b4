import path from 'node:path';
import {
  isRunnable,
  type ProviderCatalog,
  type ProviderEntry,
  providerEntry,
  readProviderList,
  RUNNABLE_PROVIDERS,
} from './provider-catalog.js';
import { openAiModel, openAiSettings } from './promptfoo-config.js';
import { type TestsFile } from './tests-files.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { readProviderTools } from './provider-tools.js';
import { type ProviderToolSchema } from '../types.js';
import { isRecord } from '../../core/is-record.js';

/** The suite's provider: a label from the `.agentv/` catalog, promptfoo's OpenAI ids, or inline. */

/**
 * promptfoo's provider ids, as a string or as the `id` of `{id, label, config}`: `echo` (the
 * answer is the rendered prompt), and `openai:<model>`, `openai:chat:<model>` and
 * `openai:responses:<model>`: an OpenAI model read with OPENAI_API_KEY and, as promptfoo reads
 * them, OPENAI_BASE_URL / OPENAI_API_BASE_URL from the environment a gate gets. Other OpenAI APIs
 * are refused by name; `undefined` when the id is not promptfoo's.
 */
function promptfooModel(
  given: unknown,
  f: TestsFile,
  at: PathSegment[],
): ProviderEntry | 'refused' | undefined {
  const id = typeof given === 'string' ? given : isRecord(given) ? given.id : undefined;
  if (typeof id !== 'string') return undefined;
  const obj = isRecord(given) ? given : {};
  const label = typeof obj.label === 'string' ? obj.label : id;
  if (id === 'echo')
    return providerEntry({ id: 'echo', label }, f.absPath, f.display, f.doc.position(at)) ?? undefined;
  const m = openAiModel(id);
  if (!m) return undefined;
  if ('refused' in m) {
    f.sink.error(
      f.doc.locate(at),
      'unsupported-provider',
      `provider '${id}' is ${m.refused}, not run by rubric-eval`,
      'suite',
    );
    return 'refused';
  }
  const { settings, unread } = openAiSettings(obj.config);
  // Loaded for its inputs only (the judge stage's head cases), nothing is sent nor checked, and
  // the tools files are not there to read: only the suite files are fetched from the head.
  const loaded =
    isRecord(obj.config) && !f.inputsOnly
      ? readProviderTools(obj.config, at, f)
      : { tools: null, functions: null };
  if (loaded.tools) settings.tools = loaded.tools;
  if (loaded.functions) settings.functions = loaded.functions;
  for (const k of unread)
    f.sink.warn(
      f.doc.locateKey([...at, 'config', k]),
      'unread-setting',
      `provider config \`${k}\` is not read by rubric-eval's openai target`,
      'suite',
    );
  const raw = {
    api_key: '{{ env.OPENAI_API_KEY }}',
    base_url_env: ['OPENAI_BASE_URL', 'OPENAI_API_BASE_URL'],
    ...(m.api === 'responses' ? { api: 'responses' } : {}),
    ...settings,
    id: 'openai',
    label,
    model: m.model,
  };
  return providerEntry(raw, f.absPath, f.display, f.doc.position(at)) ?? undefined;
}

/** One provider of the suite as the target that answers its cases, with its label and promptfoo id. */
export interface SuiteProvider {
  /** The target name its cases use (the provider's label, else its id). */
  target: string;
  /** promptfoo's provider id (`openai:gpt-4.1-mini`), for per-test `providers` filters. */
  id: string;
  /** What the tool-call assertions check its answers against (tool-call-assertion.ts). */
  tools: Omit<ProviderToolSchema, 'target'>;
}

const listOf = (v: unknown) => (Array.isArray(v) && v.every(isRecord) ? v : null);

function toolSchemasOf(entry: ProviderEntry): SuiteProvider['tools'] {
  if (entry.kind !== 'openai') return { api: null, tools: null, functions: null };
  return {
    api: entry.raw.api === 'responses' ? 'responses' : 'chat',
    tools: listOf(entry.raw.tools),
    functions: listOf(entry.raw.functions),
  };
}

/**
 * The suite's providers, inline or by label from the `.agentv/` catalog: each model or command
 * provider names a target (resolved like any target, or replaced by `answers-file`), and every
 * test runs against each (promptfoo and AgentV 5 count one result per provider); any other kind
 * is refused here, by name.
 */
export function resolveProviders(
  raw: Record<string, unknown>,
  f: TestsFile,
  catalog: ProviderCatalog,
): { target: string | null; targets: SuiteProvider[]; providers?: ProviderEntry[] } {
  const none = { target: null, targets: [] };
  const given = raw.providers ?? raw.targets;
  const key = raw.providers !== undefined ? 'providers' : 'targets';
  const list = given === undefined ? [catalog.defaultLabel] : Array.isArray(given) ? given : [given];
  let entries = catalog.entries;
  const targets: SuiteProvider[] = [];
  let failed = false;
  list.forEach((item, i) => {
    const at: PathSegment[] = given === undefined ? [] : Array.isArray(given) ? [key, i] : [key];
    const r = resolveOne(item, at, given === undefined, f, catalog);
    if (r === 'none') return;
    if (r === 'refused') {
      failed = true;
      return;
    }
    entries = [...r.added, ...entries];
    const target = r.entry.label ?? r.entry.kind;
    if (targets.some((t) => t.target === target))
      f.sink.error(
        f.doc.locate(at),
        'duplicate-provider',
        `provider '${target}' is listed twice; give one a \`label\``,
        'suite',
      );
    const id =
      typeof item === 'string' ? item : isRecord(item) && typeof item.id === 'string' ? item.id : target;
    targets.push({ target, id, tools: toolSchemasOf(r.entry) });
  });
  if (failed || targets.length === 0) return none;
  return { target: targets[0]!.target, targets, providers: entries };
}

type Resolved = { entry: ProviderEntry; added: ProviderEntry[] } | 'refused' | 'none';

function resolveOne(
  item: unknown,
  at: PathSegment[],
  byConvention: boolean,
  f: TestsFile,
  catalog: ProviderCatalog,
): Resolved {
  let entry: ProviderEntry | undefined;
  let added: ProviderEntry[] = [];
  if (typeof item === 'string' && item.startsWith('file://')) {
    const abs = path.resolve(path.dirname(f.absPath), item.slice('file://'.length));
    added = readProviderList(abs, f.ws, (rule, message) =>
      f.sink.error(f.doc.locate(at), rule, message, 'suite'),
    );
    entry = added[0];
  } else if (typeof item === 'string') {
    entry =
      catalog.entries.find((e) => e.label === item) ??
      catalog.entries.find((e) => e.label === null && e.kind === item);
    if (!entry) {
      const model = promptfooModel(item, f, at);
      if (model === 'refused') return 'refused';
      entry = model;
      if (entry) added = [entry];
    }
    if (!entry) {
      if (byConvention) return 'none'; // no provider named and none by convention: targets decide, as for v2
      f.sink.error(
        f.doc.locate(at),
        'unknown-provider',
        `provider '${item}' is not in ${catalog.dir ? `${catalog.dir}/providers.yaml` : 'any .agentv/ catalog up to the workspace root'}`,
        'suite',
      );
      return 'refused';
    }
  } else if (isRecord(item)) {
    const model = promptfooModel(item, f, at);
    if (model === 'refused') return 'refused';
    entry = model ?? providerEntry(item, f.absPath, f.display, f.doc.position(at)) ?? undefined;
    if (entry) added = [entry];
  }
  if (!entry) {
    f.sink.error(f.doc.locate(at), 'provider', 'a provider is a label or an object with `id`', 'suite');
    return 'refused';
  }
  if (!isRunnable(entry.kind)) {
    f.sink.error(
      f.doc.locate(at),
      'unsupported-provider',
      `provider '${entry.kind}'${entry.label ? ` (label '${entry.label}')` : ''} is not run by rubric-eval (runs: ${RUNNABLE_PROVIDERS.join(', ')}); record its answers and pass them with \`answers-file\`, or use a cli provider`,
      'suite',
    );
    return 'refused';
  }
  return { entry, added };
}
