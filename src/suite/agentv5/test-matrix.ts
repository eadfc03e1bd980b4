import path from 'node:path';
import { type DiagnosticSink } from '../../core/diagnostics.js';
import { type PathSegment, type SourceDocument } from '../../core/yaml-source.js';
import { type PromptDefinition } from './prompts.js';
import { type SuiteProvider } from './suite-providers.js';
import { isRecord } from '../../core/is-record.js';

/**
 * Which tool's rules a suite of this shape is graded by. promptfoo and AgentV 5 share the shape
 * (`prompts`, `providers`, `tests` with `vars` and `assert`) and disagree on verdicts: where they
 * do, a promptfoo-shaped config follows promptfoo and an AgentV-shaped one AgentV 5.
 */
export type Flavour = 'promptfoo' | 'agentv5';

/** A provider id only promptfoo writes: `openai:gpt-4.1-mini`, `echo` (AgentV names catalog labels). */
function promptfooId(p: unknown): boolean {
  const id = typeof p === 'string' ? p : isRecord(p) ? p.id : undefined;
  return typeof id === 'string' && (id === 'echo' || /^[a-z-]+:/.test(id)) && !id.startsWith('file://');
}

/**
 * AgentV's own spellings (`default_test`, `execution`, a catalog label as provider) make a suite
 * AgentV 5's; otherwise one with `prompts`, `defaultTest`, a promptfoo provider id or promptfoo's
 * file name is promptfoo's. A bare `tests` list with `vars` stays AgentV 5's.
 */
export function suiteFlavour(raw: Record<string, unknown>, absPath: string): Flavour {
  const given = raw.providers ?? raw.targets;
  const providers = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const agentv =
    raw.default_test !== undefined ||
    raw.execution !== undefined ||
    providers.some((p) => typeof p === 'string' && !promptfooId(p) && !p.startsWith('file://'));
  if (agentv) return 'agentv5';
  const promptfoo =
    raw.prompts !== undefined ||
    raw.defaultTest !== undefined ||
    providers.some(promptfooId) ||
    /^promptfooconfig/i.test(path.basename(absPath));
  return promptfoo ? 'promptfoo' : 'agentv5';
}

/** One run of a test: the prompt it renders and the provider that answers it. */
interface TestRun {
  prompt: PromptDefinition | null;
  /** The target of this run's case; null when the suite has one provider (the suite's target). */
  provider: string | null;
  idSuffix: string;
  labelSuffix: string;
}

interface MatrixEnv {
  f: { doc: SourceDocument; sink: DiagnosticSink };
  prompts: PromptDefinition[] | null;
  providers: SuiteProvider[];
}

/** promptfoo's filter match: the name itself, or a `prefix*` wildcard. */
function matches(filter: string, names: readonly string[]): boolean {
  return filter.endsWith('*') ? names.some((n) => n.startsWith(filter.slice(0, -1))) : names.includes(filter);
}

/**
 * A filter list (a test's `prompts` or `providers`): the entries it keeps, or all of them without
 * one. A filter that keeps nothing is an error at the filter, naming what there is.
 */
function filtered<T>(
  all: readonly T[],
  filter: unknown,
  names: (x: T) => string[],
  at: PathSegment[],
  what: string,
  subject: string,
  env: MatrixEnv,
): T[] {
  if (filter === undefined) return [...all];
  const list = typeof filter === 'string' ? [filter] : filter;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
    env.f.sink.error(
      env.f.doc.locate(at),
      'type',
      `a test's \`${what}\` is a list of ${what} labels`,
      subject,
    );
    return [];
  }
  const kept = all.filter((x) => list.some((l) => matches(l, names(x))));
  for (const [i, l] of list.entries())
    if (!all.some((x) => matches(l, names(x))))
      env.f.sink.error(
        env.f.doc.locate(typeof filter === 'string' ? at : [...at, i]),
        'unknown-filter',
        `'${l}' matches none of the suite's ${what} (${all.map((x) => names(x)[0]).join(', ') || 'none'})`,
        subject,
      );
  return kept;
}

/**
 * Every (prompt, provider) a test runs against, as promptfoo counts them: 2 prompts × 2
 * providers are 4 cases of each test; the test's own `prompts` and `providers` lists keep some.
 * Ids stay the test's when there is one of each (`<id>__prompt_<prompt>` and
 * `<id>__provider_<provider>` when there are several).
 */
export function runsOf(
  t: Record<string, unknown>,
  at: PathSegment[],
  subject: string,
  env: MatrixEnv,
): TestRun[] {
  const allPrompts = env.prompts ?? [null];
  const prompts = filtered(
    allPrompts,
    t.prompts,
    (p) => (p ? [p.id] : []),
    [...at, 'prompts'],
    'prompts',
    subject,
    env,
  );
  const allProviders = env.providers.length > 0 ? env.providers : [null];
  const providers = filtered(
    allProviders,
    t.providers,
    (p) => (p ? [p.target, p.id] : []),
    [...at, 'providers'],
    'providers',
    subject,
    env,
  );
  const manyPrompts = allPrompts.length > 1;
  const manyProviders = allProviders.length > 1;
  return prompts.flatMap((prompt) =>
    providers.map((provider) => {
      const parts = [
        ...(manyPrompts && prompt ? [prompt.id] : []),
        ...(manyProviders && provider ? [provider.target] : []),
      ];
      return {
        prompt,
        provider: manyProviders && provider ? provider.target : null,
        idSuffix:
          (manyPrompts && prompt ? `__prompt_${prompt.id}` : '') +
          (manyProviders && provider ? `__provider_${provider.target}` : ''),
        labelSuffix: parts.length > 0 ? ` [${parts.join(' · ')}]` : '',
      };
    }),
  );
}
