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

/** The suite's provider: a label from the `.agentv/` catalog, promptfoo's OpenAI ids, or inline. */

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * promptfoo's `openai:<model>` / `openai:chat:<model>` provider ids, as a string or as the `id`
 * of `{id, label, config}`: an OpenAI chat model read with OPENAI_API_KEY (and OPENAI_BASE_URL
 * when set), as promptfoo reads them. Other OpenAI APIs (`openai:responses:<model>`, ...) are
 * refused by name; `undefined` when the id is not promptfoo's.
 */
function promptfooModel(
  given: unknown,
  f: TestsFile,
  at: PathSegment[],
): ProviderEntry | 'refused' | undefined {
  const id = typeof given === 'string' ? given : isRecord(given) ? given.id : undefined;
  if (typeof id !== 'string') return undefined;
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
  const obj = isRecord(given) ? given : {};
  const { settings, unread } = openAiSettings(obj.config);
  for (const k of unread)
    f.sink.warn(
      f.doc.locateKey([...at, 'config', k]),
      'unread-setting',
      `provider config \`${k}\` is not read by rubric-eval's openai target`,
      'suite',
    );
  const label = typeof obj.label === 'string' ? obj.label : id;
  const raw = { api_key: '{{ env.OPENAI_API_KEY }}', ...settings, id: 'openai', label, model: m.model };
  return providerEntry(raw, f.absPath, f.display, f.doc.position(at)) ?? undefined;
}

/**
 * The suite's provider, inline or by label from the `.agentv/` catalog: a model or command
 * provider names the target that answers (resolved like any target, or replaced by
 * `answers-file`); any other kind is refused here, by name.
 */
export function resolveProviders(
  raw: Record<string, unknown>,
  f: TestsFile,
  catalog: ProviderCatalog,
): { target: string | null; providers?: ProviderEntry[] } {
  const none = { target: null };
  const given = raw.providers;
  const list = given === undefined ? [catalog.defaultLabel] : Array.isArray(given) ? given : [given];
  const first = list[0];
  const at: PathSegment[] =
    given === undefined ? [] : Array.isArray(given) ? ['providers', 0] : ['providers'];
  if (list.length > 1)
    f.sink.warn(
      f.doc.locate(['providers', 1]),
      'providers-matrix',
      `only the first provider answers here; AgentV would run every test against each of the ${list.length}`,
      'suite',
    );
  let entry: ProviderEntry | undefined;
  let entries = catalog.entries;
  if (typeof first === 'string' && first.startsWith('file://')) {
    const abs = path.resolve(path.dirname(f.absPath), first.slice('file://'.length));
    const fromFile = readProviderList(abs, f.ws, (rule, message) =>
      f.sink.error(f.doc.locate(at), rule, message, 'suite'),
    );
    entry = fromFile[0];
    entries = [...fromFile, ...catalog.entries];
  } else if (typeof first === 'string') {
    entry =
      catalog.entries.find((e) => e.label === first) ??
      catalog.entries.find((e) => e.label === null && e.kind === first);
    if (!entry) {
      const model = promptfooModel(first, f, at);
      if (model === 'refused') return none;
      entry = model;
      if (entry) entries = [entry, ...entries];
    }
    if (!entry) {
      if (given === undefined) return none; // no provider named and none by convention: targets decide, as for v2
      f.sink.error(
        f.doc.locate(at),
        'unknown-provider',
        `provider '${first}' is not in ${catalog.dir ? `${catalog.dir}/providers.yaml` : 'any .agentv/ catalog up to the workspace root'}`,
        'suite',
      );
      return none;
    }
  } else if (isRecord(first)) {
    const model = promptfooModel(first, f, at);
    if (model === 'refused') return none;
    entry = model ?? providerEntry(first, f.absPath, f.display, f.doc.position(at)) ?? undefined;
    if (entry) entries = [entry, ...catalog.entries];
  }
  if (!entry) {
    f.sink.error(f.doc.locate(at), 'provider', 'a provider is a label or an object with `id`', 'suite');
    return none;
  }
  if (!isRunnable(entry.kind)) {
    f.sink.error(
      f.doc.locate(at),
      'unsupported-provider',
      `provider '${entry.kind}'${entry.label ? ` (label '${entry.label}')` : ''} is not run by rubric-eval (runs: ${RUNNABLE_PROVIDERS.join(', ')}); record its answers and pass them with \`answers-file\`, or use a cli provider`,
      'suite',
    );
    return none;
  }
  return { target: entry.label ?? entry.kind, providers: entries };
}
