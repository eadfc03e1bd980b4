import { type DiagnosticSink } from '../../core/diagnostics.js';
import { type PathSegment, type SourceDocument } from '../../core/yaml-source.js';
import { isRecord } from '../../core/is-record.js';

/**
 * promptfoo's own configuration, beside what AgentV 5 shares with it: provider ids and objects,
 * `scenarios`, array vars (one test per combination), `$ref` assertion templates, and the keys
 * this project does not run, each refused by name at `validate` rather than silently ignored.
 */

/** Suite keys of promptfoo that change what runs or how it is graded: refused, each with why. */
const REFUSED_SUITE_KEYS: Record<string, string> = {
  nunjucksFilters: 'custom Nunjucks filters (prompts render {{ var }} only)',
  redteam: 'red-team generation',
};

/** Test keys (and `options` keys) promptfoo reads that this project does not run. */
const REFUSED_TEST_KEYS: Record<string, string> = {
  provider: 'a per-test provider',
  providerOutput: 'a recorded answer (use answers-file)',
  turns:
    'a live multi-turn conversation, each turn answered and graded in turn (AgentV `mode: conversation`)',
};
const REFUSED_TEST_OPTIONS: Record<string, string> = {
  postprocess: 'a transform of the answer before grading',
  prefix: 'a prompt prefix',
  suffix: 'a prompt suffix',
  storeOutputAs: 'output chaining between tests',
  runSerially: 'serial execution',
};
/** promptfoo reads `contextTransform` on these only (promptfoo-assertions.ts runs it). */
const CONTEXT_TYPES = /^(not-)?context-(faithfulness|relevance|recall)$/;

/** One judge per run, the workflow's (the README's Guarantees): a grader the suite names is ignored, said where. */
const GRADER_IGNORED =
  'is ignored: every assertion is graded by the workflow’s judge (the judge inputs), never by a model the suite names';

type Report = (at: PathSegment[], rule: string, message: string, subject: string) => void;

function reporter(doc: SourceDocument, sink: DiagnosticSink): Report {
  return (at, rule, message, subject) => sink.error(doc.locateKey(at), rule, message, subject);
}

/** The suite's promptfoo keys that are not run, each named where it is written. */
export function refuseSuiteKeys(
  raw: Record<string, unknown>,
  doc: SourceDocument,
  sink: DiagnosticSink,
): void {
  const report = reporter(doc, sink);
  for (const [key, why] of Object.entries(REFUSED_SUITE_KEYS))
    if (raw[key] !== undefined)
      report([key], 'unsupported-key', `promptfoo key '${key}' (${why}) is not run by rubric-eval`, 'suite');
  // Hooks around the run (AgentV's examples set up workspaces with them) do not change a grade:
  // named, not refused. AgentV's own `agentv:…` extensions are its built-ins.
  const hooks = (Array.isArray(raw.extensions) ? raw.extensions : [raw.extensions]).filter(
    (e) => e !== undefined && !String(e).startsWith('agentv:'),
  );
  if (hooks.length > 0)
    sink.warn(
      doc.locateKey(['extensions']),
      'unread-key',
      `\`extensions\` hooks (${hooks.map(String).join(', ')}) are not run by rubric-eval; prepare the workspace in an earlier step`,
      'suite',
    );
}

/** A test's (and its assertions') promptfoo keys that are not run. */
export function refuseTestKeys(
  t: Record<string, unknown>,
  at: PathSegment[],
  doc: SourceDocument,
  sink: DiagnosticSink,
  subject: string,
): void {
  const report = reporter(doc, sink);
  const refuse = (path: PathSegment[], name: string, why: string) =>
    report(path, 'unsupported-key', `promptfoo key '${name}' (${why}) is not run by rubric-eval`, subject);
  for (const [k, why] of Object.entries(REFUSED_TEST_KEYS))
    if (t[k] !== undefined) refuse([...at, k], k, why);
  if (isRecord(t.options)) {
    for (const [k, why] of Object.entries(REFUSED_TEST_OPTIONS))
      if (t.options[k] !== undefined) refuse([...at, 'options', k], `options.${k}`, why);
    if (t.options.provider !== undefined)
      sink.warn(
        doc.locateKey([...at, 'options', 'provider']),
        'grader-ignored',
        `\`options.provider\` (the grader) ${GRADER_IGNORED}`,
        subject,
      );
  }
  const walk = (list: unknown, base: PathSegment[]) => {
    if (!Array.isArray(list)) return;
    list.forEach((a, i) => {
      if (!isRecord(a)) return;
      const judged = a.type === 'llm-rubric' || a.type === 'not-llm-rubric';
      // A `script`'s `provider` is AgentV's budget for its own calls; on any other type, a grader.
      const graded = typeof a.type === 'string' && !/^(not-)?script$/.test(a.type);
      if (a.contextTransform !== undefined && !CONTEXT_TYPES.test(String(a.type)))
        report(
          [...base, i, 'contextTransform'],
          'unsupported-key',
          '`contextTransform` is read on context-faithfulness, context-relevance and context-recall only',
          subject,
        );
      if (judged && a.target !== undefined)
        sink.warn(
          doc.locateKey([...base, i, 'target']),
          'grader-ignored',
          `the assertion's \`target\` (its grader) ${GRADER_IGNORED}`,
          subject,
        );
      if (graded && a.provider !== undefined)
        sink.warn(
          doc.locateKey([...base, i, 'provider']),
          'grader-ignored',
          `the assertion's \`provider\` (its grader) ${GRADER_IGNORED}`,
          subject,
        );
      walk(a.assert, [...base, i, 'assert']);
    });
  };
  walk(t.assert, [...at, 'assert']);
}

/**
 * `$ref: '#/assertionTemplates/<name>'` in an assert list, replaced by the template (promptfoo);
 * keys written beside `$ref` override the template's. An unknown reference is an error.
 */
export function resolveAssertionRefs(
  list: unknown,
  templates: unknown,
  at: PathSegment[],
  doc: SourceDocument,
  sink: DiagnosticSink,
  subject: string,
): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((a, i) => {
    if (!isRecord(a)) return a;
    if (Array.isArray(a.assert))
      return {
        ...a,
        assert: resolveAssertionRefs(a.assert, templates, [...at, i, 'assert'], doc, sink, subject),
      };
    if (typeof a.$ref !== 'string') return a;
    const m = /^#\/assertionTemplates\/(.+)$/.exec(a.$ref);
    const found = m && isRecord(templates) ? templates[m[1]!] : undefined;
    if (!isRecord(found)) {
      sink.error(
        doc.locate([...at, i, '$ref']),
        'ref',
        m
          ? `assertion template '${m[1]}' is not defined in \`assertionTemplates\``
          : `'${a.$ref}': only '#/assertionTemplates/<name>' references are read`,
        subject,
      );
      return a;
    }
    const { $ref: _r, ...own } = a;
    return { ...found, ...own };
  });
}

/**
 * promptfoo expands a var whose value is an array into one test per value, and several such vars
 * into every combination (their cartesian product). `_`-prefixed vars, chat message lists, and
 * AgentV's `input` / `expected_output` are not expanded. Each combination is returned with its own vars.
 */
export function expandVars(vars: Record<string, unknown>): Record<string, unknown>[] {
  // A message list (AgentV's `input` as chat messages) is one value, not a list of values.
  const isMessages = (v: unknown[]) =>
    v.length > 0 && v.every((m) => isRecord(m) && typeof m.role === 'string');
  const keys = Object.keys(vars).filter((k) => {
    const v = vars[k];
    // AgentV's `input` and `expected_output` lists are a conversation or a structured answer.
    const agentvValue = k === 'input' || k === 'expected_output';
    return Array.isArray(v) && v.length > 0 && !k.startsWith('_') && !agentvValue && !isMessages(v);
  });
  let combos: Record<string, unknown>[] = [{ ...vars }];
  for (const k of keys) {
    const values = vars[k] as unknown[];
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [k]: v })));
  }
  return combos;
}

/**
 * promptfoo's `scenarios`: each scenario's `config` entries (vars and more) crossed with its
 * `tests`, the test's keys over the entry's, vars merged by key and assertions concatenated.
 * Returned with where each test came from, for positions.
 */
export function scenarioTests(
  scenarios: unknown,
  doc: SourceDocument,
  sink: DiagnosticSink,
): { value: Record<string, unknown>; at: PathSegment[] }[] {
  if (scenarios === undefined) return [];
  if (!Array.isArray(scenarios)) {
    sink.error(doc.locate(['scenarios']), 'type', '`scenarios` is a list of {config, tests}', 'suite');
    return [];
  }
  const out: { value: Record<string, unknown>; at: PathSegment[] }[] = [];
  scenarios.forEach((s, si) => {
    if (typeof s === 'string') {
      sink.error(
        doc.locate(['scenarios', si]),
        'unsupported-scenarios-file',
        `scenarios from a file ('${s}') are not read; write the scenario inline`,
        'suite',
      );
      return;
    }
    if (!isRecord(s) || !Array.isArray(s.config) || !Array.isArray(s.tests)) {
      sink.error(
        doc.locate(['scenarios', si]),
        'type',
        'a scenario needs `config` (a list of vars sets) and `tests` (a list of tests)',
        'suite',
      );
      return;
    }
    const tests = s.tests;
    s.config.forEach((c, ci) => {
      const data = isRecord(c) ? c : {};
      tests.forEach((t, ti) => {
        const test = isRecord(t) ? t : {};
        const asList = (v: unknown) => (Array.isArray(v) ? v : []);
        const description = [s.description, data.description, test.description].filter(
          (d) => typeof d === 'string',
        );
        out.push({
          at: ['scenarios', si, 'tests', ti],
          value: {
            ...data,
            ...test,
            id:
              typeof test.id === 'string' ? `${test.id}-${ci + 1}` : `scenario-${si + 1}-${ci + 1}-${ti + 1}`,
            ...(description.length > 0 ? { description: description.join(' · ') } : {}),
            vars: { ...(isRecord(data.vars) ? data.vars : {}), ...(isRecord(test.vars) ? test.vars : {}) },
            assert: [...asList(data.assert), ...asList(test.assert)],
          },
        });
      });
    });
  });
  return out;
}

/**
 * promptfoo OpenAI ids: `openai:<model>` and `openai:chat:<model>` are chat models,
 * `openai:responses:<model>` the Responses API; the other APIs are refused.
 */
export function openAiModel(
  id: string,
): { model: string; api: 'chat' | 'responses' } | { refused: string } | null {
  if (!id.startsWith('openai:')) return null;
  const rest = id.slice('openai:'.length);
  const kind =
    /^(chat|responses|completion|embedding|embeddings|assistant|image|realtime|moderation|transcription):(.+)$/.exec(
      rest,
    );
  if (!kind) return { model: rest, api: 'chat' };
  if (kind[1] === 'chat' || kind[1] === 'responses') return { model: kind[2]!, api: kind[1] };
  return { refused: `OpenAI's ${kind[1]} API (not a chat model)` };
}

/** promptfoo's OpenAI provider `config` keys as the openai target's settings; the others named. */
export function openAiSettings(config: unknown): { settings: Record<string, unknown>; unread: string[] } {
  const settings: Record<string, unknown> = {};
  const unread: string[] = [];
  if (!isRecord(config)) return { settings, unread };
  const names: Record<string, string> = {
    temperature: 'temperature',
    max_tokens: 'max_output_tokens',
    max_completion_tokens: 'max_output_tokens',
    apiBaseUrl: 'base_url',
    apiHost: 'base_url',
    apiKey: 'api_key',
    // Tools (loaded from file:// by provider-tools.ts), sent as promptfoo sends them.
    tools: 'tools',
    tool_choice: 'tool_choice',
    functions: 'functions',
    function_call: 'function_call',
  };
  for (const [k, v] of Object.entries(config)) {
    const to = names[k];
    if (to) settings[to] = k === 'apiHost' && typeof v === 'string' ? `https://${v}/v1` : v;
    else unread.push(k);
  }
  return { settings, unread };
}
