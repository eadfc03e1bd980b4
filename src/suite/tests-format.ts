import { statSync } from 'node:fs';
import path from 'node:path';
import { DiagnosticSink } from '../diagnostics.js';
import { DEFAULT_TEST_THRESHOLD } from '../rubric/case-scoring.js';
import { textMessage } from './messages.js';
import {
  findProviderCatalog,
  isRunnable,
  type ProviderCatalog,
  providerEntry,
  readProviderList,
} from './provider-catalog.js';
import { mapAssertions } from './tests-assertions.js';
import { type EvalCase, type EvalSuite, type Message } from './types.js';
import { type Workspace } from './workspace.js';
import { type PathSegment, parseYamlSource, type SourceDocument } from './yaml-source.js';

/**
 * AgentV 5 / promptfoo suites: `prompts`, `providers`, `tests` with `vars` and `assert`,
 * `default_test` (`defaultTest`). Read into the same EvalSuite as v2, with AgentV 5's scoring
 * (the test's weighted score against its threshold) carried on each case.
 */

export interface TestsFile {
  absPath: string;
  display: string;
  doc: SourceDocument;
  sink: DiagnosticSink;
  ws: Workspace;
}

/** What the v2 loader lends: message lists with file parts, read and located the v2 way. */
export interface MessageReader {
  loadMessages(value: unknown, at: PathSegment[], defaultRole: string, subject: string): Message[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The format is told by its keys: v2's `tests` alias has neither vars, assert nor prompts. */
export function isTestsFormat(raw: Record<string, unknown>): boolean {
  if (['prompts', 'providers', 'default_test', 'defaultTest'].some((k) => raw[k] !== undefined)) return true;
  if (typeof raw.tests === 'string') return true;
  return (
    Array.isArray(raw.tests) &&
    raw.tests.some((t) => isRecord(t) && (t.vars !== undefined || t.assert !== undefined))
  );
}

const VAR = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

/** `{{ name }}` and `{{ a.b }}` from the vars; objects as JSON. What AgentV's examples use of Nunjucks. */
export function renderVars(template: string, vars: Record<string, unknown>): string {
  return template.replace(VAR, (whole, name: string) => {
    let v: unknown = vars;
    for (const k of name.split('.')) v = isRecord(v) ? v[k] : undefined;
    if (v === undefined) return whole;
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

function threshold(v: unknown): number | undefined {
  return typeof v === 'number' && v >= 0 && v <= 1 ? v : undefined;
}

export function loadTestsSuite(reader: MessageReader, f: TestsFile): EvalSuite | undefined {
  const raw = f.doc.value as Record<string, unknown>;
  const dir = path.dirname(f.absPath);
  const target = resolveProviders(raw, f, findProviderCatalog(dir, f.ws));
  const tests = readTests(raw, f, dir);
  if (!tests) return undefined;
  const defaults = isRecord(raw.default_test)
    ? raw.default_test
    : isRecord(raw.defaultTest)
      ? raw.defaultTest
      : {};
  const suiteThreshold = threshold(raw.threshold) ?? DEFAULT_TEST_THRESHOLD;
  const prompts = raw.prompts ?? raw.prompt;
  const prompt = Array.isArray(prompts) ? prompts[0] : prompts;
  const cases: EvalCase[] = [];
  const seen = new Set<string>();
  tests.list.forEach((t, i) => {
    const at: PathSegment[] = [...tests.at, i];
    const subject = isRecord(t) && t.id !== undefined ? `test '${String(t.id)}'` : `test ${i + 1}`;
    if (!isRecord(t)) {
      tests.file.sink.error(tests.file.doc.locate(at), 'type', 'a test must be a mapping', subject);
      return;
    }
    const c = loadTest(t, at, subject, {
      reader,
      f: tests.file,
      dir,
      defaults,
      suiteAssert: raw.assert,
      prompt,
      suiteThreshold,
      suite: f,
    });
    if (!c) return;
    if (seen.has(c.id))
      tests.file.sink.error(
        tests.file.doc.locate([...at, 'id']),
        'duplicate-id',
        `test id '${c.id}' is used twice`,
        subject,
      );
    seen.add(c.id);
    cases.push(c);
  });
  if (tests.file !== f) f.sink.items.push(...tests.file.sink.items);
  return {
    path: f.display,
    absPath: f.absPath,
    description: typeof raw.description === 'string' ? raw.description : null,
    dataset: typeof raw.name === 'string' ? raw.name : null,
    target,
    cases,
  };
}

interface TestEnv {
  reader: MessageReader;
  f: TestsFile;
  suite: TestsFile;
  dir: string;
  defaults: Record<string, unknown>;
  suiteAssert: unknown;
  prompt: unknown;
  suiteThreshold: number;
}

/** One test, `default_test` merged as AgentV merges it: vars by key, assertions default-first. */
function loadTest(
  t: Record<string, unknown>,
  at: PathSegment[],
  subject: string,
  env: TestEnv,
): EvalCase | undefined {
  const { f } = env;
  const before = f.sink.items.filter((d) => d.severity === 'error').length;
  const vars = {
    ...(isRecord(env.defaults.vars) ? env.defaults.vars : {}),
    ...(isRecord(t.vars) ? t.vars : {}),
  };
  const asList = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
  const render = (s: string) => renderVars(s, vars);
  const ctx = { doc: f.doc, sink: f.sink, ws: f.ws, dir: env.dir, subject, render };
  const evaluators = [
    ...mapAssertions(asList(env.defaults.assert), ['default_test', 'assert'], {
      ...ctx,
      doc: env.suite.doc,
      sink: env.suite.sink,
    }),
    ...mapAssertions(asList(env.suiteAssert), ['assert'], {
      ...ctx,
      doc: env.suite.doc,
      sink: env.suite.sink,
    }),
    ...mapAssertions(asList(t.assert), [...at, 'assert'], ctx),
  ];
  const written =
    asList(env.defaults.assert).length + asList(env.suiteAssert).length + asList(t.assert).length;
  if (written === 0)
    f.sink.error(
      f.doc.locate(at),
      'required',
      'a test needs at least one assertion in `assert` (or in `default_test`)',
      subject,
    );
  const inputMessages = inputOf(env.prompt, vars, [...at, 'vars'], subject, env);
  const expected = vars.expected_output;
  const expectedMessages =
    expected === undefined
      ? []
      : env.reader.loadMessages(expected, [...at, 'vars', 'expected_output'], 'assistant', subject);
  const execution = isRecord(t.execution) ? t.execution : {};
  const th =
    threshold(t.threshold) ??
    threshold(execution.threshold) ??
    threshold(env.defaults.threshold) ??
    env.suiteThreshold;
  if (f.sink.items.filter((d) => d.severity === 'error').length > before) return undefined;
  return {
    id: t.id === undefined ? `test-${String((at[at.length - 1] as number) + 1)}` : String(t.id),
    suitePath: env.suite.display,
    pos: f.doc.position(at),
    expectedOutcome: typeof t.description === 'string' ? t.description : '',
    inputMessages,
    expectedMessages,
    conversationId: typeof t.conversation_id === 'string' ? t.conversation_id : null,
    referenceAnswer: typeof expected === 'string' ? expected : null,
    target: null,
    evaluators,
    scoring: { kind: 'threshold', threshold: th },
  };
}

/** The first prompt with the vars: `{{ input }}` alone hands over a message list as it is. */
function inputOf(
  prompt: unknown,
  vars: Record<string, unknown>,
  at: PathSegment[],
  subject: string,
  env: TestEnv,
): Message[] {
  const template =
    typeof prompt === 'string'
      ? prompt
      : isRecord(prompt) && typeof prompt.raw === 'string'
        ? prompt.raw
        : '{{ input }}';
  if (template.includes('{%')) {
    env.f.sink.error(
      env.suite.doc.locate(['prompts']),
      'template',
      'Nunjucks tags ({% ... %}) are not rendered; use {{ var }} only',
      subject,
    );
    return [];
  }
  const whole = /^\s*\{\{\s*([A-Za-z_]\w*)\s*\}\}\s*$/.exec(template);
  if (whole) {
    const v = vars[whole[1]!];
    if (v === undefined) {
      env.f.sink.error(
        env.f.doc.locate(at),
        'required',
        `the prompt uses {{ ${whole[1]} }} but the test has no such var`,
        subject,
      );
      return [];
    }
    return env.reader.loadMessages(v, [...at, whole[1]!], 'user', subject);
  }
  return [textMessage('user', renderVars(template, vars))];
}

/** Inline tests, or `tests: file://cases.yaml|.jsonl` read with its own positions. */
function readTests(
  raw: Record<string, unknown>,
  f: TestsFile,
  dir: string,
): { list: unknown[]; at: PathSegment[]; file: TestsFile } | undefined {
  const t = raw.tests;
  if (Array.isArray(t) && t.some((x) => typeof x === 'string')) {
    f.sink.error(
      f.doc.locate(['tests', t.findIndex((x) => typeof x === 'string')]),
      'tests-file-entry',
      'file references inside the `tests` list are not read yet; use `tests: file://one-file.yaml` or inline tests',
      'suite',
    );
    return undefined;
  }
  if (Array.isArray(t)) return { list: t, at: ['tests'], file: f };
  if (typeof t !== 'string') {
    f.sink.error(
      f.doc.locate(['tests']),
      'type',
      '`tests` must be a list of tests or a file reference',
      'suite',
    );
    return undefined;
  }
  const ref = t.startsWith('file://') ? t.slice('file://'.length) : t;
  const abs = path.resolve(dir, ref);
  if (!f.ws.contains(abs)) {
    f.sink.error(f.doc.locate(['tests']), 'escapes-workspace', `'${t}' is outside the workspace`, 'suite');
    return undefined;
  }
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    f.sink.error(f.doc.locate(['tests']), 'missing-file', `tests file '${t}' not found`, 'suite');
    return undefined;
  }
  if (isDir) {
    f.sink.error(
      f.doc.locate(['tests']),
      'tests-directory',
      `'${t}' is a folder of test directories (AgentV directory discovery); list the tests or give one file`,
      'suite',
    );
    return undefined;
  }
  const display = f.ws.display(abs);
  const sink = new DiagnosticSink(display);
  const text = f.ws.readText(abs);
  if (/\.jsonl$/i.test(abs)) {
    const list: unknown[] = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        list.push(JSON.parse(line));
      } catch (err) {
        sink.error({ line: i + 1, column: 1 }, 'json', (err as Error).message);
      }
    });
    const doc: SourceDocument = {
      value: list,
      locate: () => ({ line: 1, column: 1 }),
      locateKey: () => ({ line: 1, column: 1 }),
      position: () => ({ line: 1, column: 1 }),
    };
    return { list, at: [], file: { ...f, absPath: abs, display, doc, sink } };
  }
  const doc = parseYamlSource(text, sink);
  const list =
    doc && Array.isArray(doc.value)
      ? doc.value
      : doc && isRecord(doc.value) && Array.isArray(doc.value.tests)
        ? doc.value.tests
        : null;
  if (!doc || !list) {
    if (doc) sink.error({ line: 1, column: 1 }, 'type', 'a tests file holds a list of tests');
    f.sink.items.push(...sink.items);
    return undefined;
  }
  return {
    list,
    at: Array.isArray(doc.value) ? [] : ['tests'],
    file: { ...f, absPath: abs, display, doc, sink },
  };
}

/**
 * The suite's provider, inline or by label from the `.agentv/` catalog: a model or command
 * provider names the target that answers (resolved like any target, or replaced by
 * `answers-file`); any other kind is refused here, by name.
 */
function resolveProviders(
  raw: Record<string, unknown>,
  f: TestsFile,
  catalog: ProviderCatalog,
): string | null {
  const given = raw.providers;
  const list = given === undefined ? [catalog.defaultLabel] : Array.isArray(given) ? given : [given];
  const first = list[0];
  const at: PathSegment[] =
    given === undefined ? [] : Array.isArray(given) ? ['providers', 0] : ['providers'];
  let entry;
  if (typeof first === 'string' && first.startsWith('file://')) {
    const abs = path.resolve(path.dirname(f.absPath), first.slice('file://'.length));
    entry = f.ws.contains(abs) ? readProviderList(abs, f.ws)[0] : undefined;
  } else if (typeof first === 'string') {
    entry =
      catalog.entries.find((e) => e.label === first) ??
      catalog.entries.find((e) => e.label === null && e.kind === first);
    if (!entry) {
      if (given === undefined) return null; // no provider named and none by convention: targets decide, as for v2
      f.sink.error(
        f.doc.locate(at),
        'unknown-provider',
        `provider '${first}' is not in ${catalog.dir ? `${catalog.dir}/providers.yaml` : 'any .agentv/ catalog up to the workspace root'}`,
        'suite',
      );
      return null;
    }
  } else if (isRecord(first)) entry = providerEntry(first) ?? undefined;
  if (!entry) {
    f.sink.error(f.doc.locate(at), 'provider', 'a provider is a label or an object with `id`', 'suite');
    return null;
  }
  if (!isRunnable(entry.kind)) {
    f.sink.error(
      f.doc.locate(at),
      'unsupported-provider',
      `provider '${entry.kind}'${entry.label ? ` (label '${entry.label}')` : ''} is not run by rubric-eval (runs: openai, azure, cli); record its answers and pass them with \`answers-file\`, or use a cli provider`,
      'suite',
    );
    return null;
  }
  return entry.label ?? entry.kind;
}
