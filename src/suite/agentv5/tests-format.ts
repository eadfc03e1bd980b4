import path from 'node:path';
import { DiagnosticSink } from '../../core/diagnostics.js';
import { readReferencedFile } from '../../core/user-file.js';
import { parsePrompts, type PromptDefinition, renderText } from './prompts.js';
import { fileVars, inputOf, type MessageReader } from './test-inputs.js';
import { findProviderCatalog } from './provider-catalog.js';
import { distinctNames, mapAssertions } from './tests-assertions.js';
import { compareConfig, noComparison } from './compare-assertions.js';
import { type CompareFound } from './assertion-context.js';
import { promptfooTest } from './promptfoo-assertions.js';
import { resolveProviders, type SuiteProvider } from './suite-providers.js';
import { type Flavour, runsOf, suiteFlavour } from './test-matrix.js';
import {
  expandVars,
  refuseSuiteKeys,
  refuseTestKeys,
  resolveAssertionRefs,
  scenarioTests,
} from './promptfoo-config.js';
import { type CaseScoring, type EvalCase, type EvalSuite, type EvaluatorConfig } from '../types.js';
import { readTests, type TestsFile } from './tests-files.js';
import { checkSuiteKeys, checkTestKeys } from './known-keys.js';
import { TestSchema, TestsSuiteSchema } from './tests-schema.js';
import { type PathSegment, parseYamlSource } from '../../core/yaml-source.js';
import { reportZodIssues } from '../../core/zod-diagnostics.js';
import { parseRepeat } from '../../core/repeat-setting.js';
import { isRecord } from '../../core/is-record.js';

/** AgentV 5's pass threshold when neither the test, `default_test` nor the suite sets one. */
export const DEFAULT_TEST_THRESHOLD = 0.8;

/**
 * AgentV 5 / promptfoo suites: `prompts`, `providers`, `tests` with `vars` and `assert`,
 * `default_test` (`defaultTest`). Read into the same EvalSuite as v2, with AgentV 5's scoring
 * (the test's weighted score against its threshold) carried on each case.
 */

/** The format is told by its keys: v2's `tests` alias has neither vars, assert nor prompts. */
export function isTestsFormat(raw: Record<string, unknown>): boolean {
  if (['prompts', 'providers', 'default_test', 'defaultTest', 'scenarios'].some((k) => raw[k] !== undefined))
    return true;
  if (typeof raw.tests === 'string') return true;
  return (
    Array.isArray(raw.tests) &&
    raw.tests.some((t) => isRecord(t) && (t.vars !== undefined || t.assert !== undefined))
  );
}

/** `default_test` inline, or `file://` to a YAML mapping (AgentV reads it the same way). */
function defaultTest(
  value: unknown,
  f: TestsFile,
  dir: string,
  extra: DiagnosticSink[],
): Record<string, unknown> | undefined {
  if (value === undefined) return {};
  if (isRecord(value)) return value;
  const key =
    f.doc.value && isRecord(f.doc.value) && f.doc.value.default_test !== undefined
      ? 'default_test'
      : 'defaultTest';
  const fail = (rule: string, message: string) => {
    f.sink.error(f.doc.locate([key]), rule, message, 'suite');
    return undefined;
  };
  if (typeof value !== 'string' || !value.startsWith('file://'))
    return fail('type', '`default_test` is a mapping or a file:// reference to one');
  const read = readReferencedFile(f.ws, value.slice('file://'.length), dir, fail, value);
  if (!read) return undefined;
  // Its syntax errors are the user's to fix in that file: reported there, with their positions.
  const sink = new DiagnosticSink(f.ws.display(read.absPath));
  extra.push(sink);
  const doc = parseYamlSource(read.text, sink);
  if (sink.hasErrors) return undefined;
  const v = doc?.value;
  if (!isRecord(v)) return fail('type', `'${value}' must hold a YAML mapping (vars, assert, threshold)`);
  const checked = TestSchema.safeParse(v);
  if (!checked.success) return fail('type', `'${value}': ${checked.error.issues[0]?.message ?? 'invalid'}`);
  return v;
}

function threshold(v: unknown): number | undefined {
  return typeof v === 'number' && v >= 0 && v <= 1 ? v : undefined;
}

export function loadTestsSuite(reader: MessageReader, f: TestsFile): EvalSuite | undefined {
  const raw = f.doc.value as Record<string, unknown>;
  const dir = path.dirname(f.absPath);
  // The suite's own keys first (tests are checked one by one, so one bad test hides no other).
  const head = { ...raw, tests: Array.isArray(raw.tests) ? [] : raw.tests };
  const checked = TestsSuiteSchema.safeParse(head);
  if (!checked.success) {
    reportZodIssues(checked.error, head, f.doc, f.sink, [], 'suite');
    return undefined;
  }
  const refused = (rule: string, message: string) =>
    f.sink.error({ line: 0, column: 0 }, rule, message, 'suite');
  const { target, targets, providers } = resolveProviders(raw, f, findProviderCatalog(dir, f.ws, refused));
  const flavour = suiteFlavour(raw, f.absPath);
  // Problems found in the files the suite refers to, reported after the suite's own.
  const extra: DiagnosticSink[] = [];
  const reportExtra = () => {
    for (const x of extra) f.sink.items.push(...x.items);
  };
  refuseSuiteKeys(raw, f.doc, f.sink);
  checkSuiteKeys(raw, f.doc, f.sink);
  const defaultKey = raw.default_test !== undefined ? 'default_test' : 'defaultTest';
  if (isRecord(raw[defaultKey])) refuseTestKeys(raw[defaultKey], [defaultKey], f.doc, f.sink, 'suite');
  if (raw.tests === undefined && raw.scenarios === undefined) {
    f.sink.error(
      { line: 1, column: 1 },
      'required',
      'a suite needs `tests` (or promptfoo `scenarios`)',
      'suite',
    );
    return undefined;
  }
  const listed = raw.tests === undefined ? [] : readTests(f, extra);
  const tests = listed && [
    ...listed,
    ...scenarioTests(raw.scenarios, f.doc, f.sink).map((s) => ({ ...s, file: f })),
  ];
  if (!tests) {
    reportExtra();
    return undefined;
  }
  const defaults = defaultTest(raw.default_test ?? raw.defaultTest, f, dir, extra);
  if (!defaults) {
    reportExtra();
    return undefined;
  }
  const suiteThreshold = threshold(raw.threshold) ?? DEFAULT_TEST_THRESHOLD;
  const promptKey = raw.prompts !== undefined ? 'prompts' : 'prompt';
  const prompts = parsePrompts(raw[promptKey], { doc: f.doc, sink: f.sink, ws: f.ws, dir, key: promptKey });
  const cases: EvalCase[] = [];
  const seen = new Set<string>();
  tests.forEach(({ value: t, at, file }, i) => {
    const subject = isRecord(t) && t.id !== undefined ? `test '${String(t.id)}'` : `test ${i + 1}`;
    const test = TestSchema.safeParse(t);
    if (!test.success || !isRecord(t)) {
      if (test.success) file.sink.error(file.doc.locate(at), 'type', 'a test must be a mapping', subject);
      else reportZodIssues(test.error, t, file.doc, file.sink, at, subject);
      return;
    }
    const expanded = loadTest(t, at, subject, {
      reader,
      f: file,
      dir,
      defaults,
      suiteAssert: raw.assert,
      templates: raw.assertionTemplates,
      prompts,
      suiteThreshold,
      suite: f,
      providers: targets,
      flavour,
    });
    for (const c of expanded) {
      if (seen.has(c.id))
        file.sink.error(
          file.doc.locate([...at, 'id']),
          'duplicate-id',
          `test id '${c.id}' is used twice`,
          subject,
        );
      seen.add(c.id);
      cases.push(c);
    }
  });
  reportExtra();
  return {
    path: f.display,
    absPath: f.absPath,
    description: typeof raw.description === 'string' ? raw.description : null,
    dataset: typeof raw.name === 'string' ? raw.name : null,
    target,
    cases,
    ...(providers ? { providers } : {}),
    ...(parseRepeat(raw.repeat) !== null ? { repeat: parseRepeat(raw.repeat)! } : {}),
    ...(typeof raw.min_pass_rate === 'number' ? { minPassRate: raw.min_pass_rate } : {}),
  };
}

interface TestEnv {
  reader: MessageReader;
  f: TestsFile;
  suite: TestsFile;
  dir: string;
  defaults: Record<string, unknown>;
  suiteAssert: unknown;
  /** promptfoo's `assertionTemplates`, for `$ref`. */
  templates: unknown;
  prompts: PromptDefinition[] | null;
  suiteThreshold: number;
  /** The suite's providers: each test runs against every one (a case per prompt × provider). */
  providers: SuiteProvider[];
  flavour: Flavour;
}

/**
 * One test, `default_test` merged as AgentV merges it (vars by key; assertions ordered as `testEvaluators` says),
 * once per prompt: with several prompts each copy's id gets `__prompt_<prompt id>` (AgentV).
 */
function loadTest(t: Record<string, unknown>, at: PathSegment[], subject: string, env: TestEnv): EvalCase[] {
  const { f } = env;
  refuseTestKeys(t, at, f.doc, f.sink, subject);
  checkTestKeys(t, at, 'test', { doc: f.doc, sink: f.sink, subject });
  // Case files in AgentV's older shape keep `input` / `expected_output` on the test: AgentV
  // moves them into the vars, and so do we.
  const vars = {
    ...(isRecord(env.defaults.vars) ? env.defaults.vars : {}),
    ...(t.input !== undefined ? { input: t.input } : {}),
    ...(t.expected_output !== undefined ? { expected_output: t.expected_output } : {}),
    ...(isRecord(t.vars) ? t.vars : {}),
  };
  const refs = (list: unknown, where: PathSegment[], doc: TestsFile) =>
    resolveAssertionRefs(list, env.templates, where, doc.doc, doc.sink, subject);
  const test = { ...t, assert: refs(t.assert, [...at, 'assert'], f) };
  const resolved: TestEnv = {
    ...env,
    defaults: { ...env.defaults, assert: refs(env.defaults.assert, ['default_test', 'assert'], env.suite) },
    suiteAssert: refs(env.suiteAssert, ['assert'], env.suite),
  };
  // Array vars: one test per combination (promptfoo), its id numbered.
  const combos = expandVars(fileVars(vars, [...at, 'vars'], subject, env));
  return combos.flatMap((v, k) =>
    loadOne(test, v, combos.length > 1 ? `-${k + 1}` : '', at, subject, resolved),
  );
}

function loadOne(
  t: Record<string, unknown>,
  vars: Record<string, unknown>,
  suffix: string,
  at: PathSegment[],
  subject: string,
  env: TestEnv,
): EvalCase[] {
  const { f } = env;
  const before = f.sink.items.filter((d) => d.severity === 'error').length;
  const execution = isRecord(t.execution) ? t.execution : {};
  const { evaluators, compare: found } = testEvaluators(t, vars, suffix, at, subject, env);
  const runs = runsOf(t, at, subject, env);
  const inputs = new Map(
    [...new Set(runs.map((r) => r.prompt))].map((p) => [p, inputOf(p, vars, at, subject, env)]),
  );
  const expected = vars.expected_output;
  const expectedMessages =
    expected === undefined
      ? []
      : env.reader.loadMessages(expected, [...at, 'vars', 'expected_output'], 'assistant', subject);
  const scoring = scoringOf(t, execution, env);
  const id =
    (t.id === undefined ? `test-${String((at[at.length - 1] as number) + 1)}` : String(t.id)) + suffix;
  // promptfoo compares a test's answers provider by provider, each provider's prompts in order.
  const provider = (r: (typeof runs)[number]) => env.providers.findIndex((p) => p.target === r.provider);
  const compare = found.at
    ? compareConfig(
        found,
        evaluators,
        [...runs].sort((a, b) => provider(a) - provider(b)).map((r) => id + r.idSuffix),
        { doc: f.doc, sink: f.sink, subject },
      )
    : null;
  if (f.sink.items.filter((d) => d.severity === 'error').length > before) return [];
  const description = typeof t.description === 'string' ? t.description : null;
  return runs.map(({ prompt: p, provider, idSuffix, labelSuffix }) => ({
    id: id + idSuffix,
    ...(description ? { label: description + suffix + labelSuffix } : {}),
    suitePath: env.suite.display,
    pos: f.doc.position(at),
    ...(f.display !== env.suite.display ? { sourcePath: f.display } : {}),
    expectedOutcome: typeof t.criteria === 'string' ? t.criteria : (description ?? ''),
    inputMessages: inputs.get(p) ?? [],
    expectedMessages,
    conversationId: typeof t.conversation_id === 'string' ? t.conversation_id : null,
    referenceAnswer: typeof expected === 'string' ? expected : null,
    target: provider,
    evaluators,
    scoring,
    ...clusterOf(t.metadata),
    ...(compare ? { compare } : {}),
  }));
}

/**
 * A test's evaluators, in the order its format runs them (unless it opts out of the suite's):
 * AgentV 5 its own first, then `default_test`'s, then the suite's (grader-parser.ts parseGraders);
 * promptfoo `defaultTest`'s first, then the test's.
 */
function testEvaluators(
  t: Record<string, unknown>,
  vars: Record<string, unknown>,
  suffix: string,
  at: PathSegment[],
  subject: string,
  env: TestEnv,
): { evaluators: EvaluatorConfig[]; compare: CompareFound } {
  const { f } = env;
  const asList = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
  const render = (s: string) => {
    try {
      return renderText(s, vars, f.ws.templatesAsData);
    } catch (err) {
      f.sink.error(
        f.doc.locate(at),
        'template',
        `an assertion value does not render: ${(err as Error).message}`,
        subject,
      );
      return s;
    }
  };
  const plain = {
    doc: f.doc,
    sink: f.sink,
    ws: f.ws,
    dir: env.dir,
    subject,
    render,
    flavour: env.flavour,
    providers: env.providers,
  };
  const defaultsAt = [
    env.suite.doc.value && isRecord(env.suite.doc.value) && env.suite.doc.value.default_test !== undefined
      ? 'default_test'
      : 'defaultTest',
  ];
  const promptfoo = promptfooTest(t, at, env.defaults, defaultsAt, vars, plain, {
    ...plain,
    doc: env.suite.doc,
    sink: env.suite.sink,
  });
  const compare = noComparison();
  const ctx = { ...plain, promptfoo, compare };
  // A test opts out of the suite's assertions: AgentV 5's `execution.skip_defaults`, promptfoo's
  // `options.disableDefaultAsserts`.
  const execution = isRecord(t.execution) ? t.execution : {};
  const options = isRecord(t.options) ? t.options : {};
  const skipDefaults = execution.skip_defaults === true || options.disableDefaultAsserts === true;
  const defaultAssert = skipDefaults ? [] : asList(env.defaults.assert);
  const suiteAssert = skipDefaults ? [] : asList(env.suiteAssert);
  const inSuite = { ...ctx, doc: env.suite.doc, sink: env.suite.sink };
  const inherited = () => [
    ...mapAssertions(defaultAssert, [...defaultsAt, 'assert'], inSuite),
    ...mapAssertions(suiteAssert, ['assert'], inSuite),
  ];
  const own = () => mapAssertions(asList(t.assert), [...at, 'assert'], ctx);
  // Inputs only: no assertion is compiled, checked or has its script read (the base's grade).
  const evaluators = env.suite.inputsOnly
    ? []
    : env.flavour === 'promptfoo'
      ? [...inherited(), ...own()]
      : [...own(), ...inherited()];
  if (env.flavour === 'promptfoo') distinctNames(evaluators);
  const written = defaultAssert.length + suiteAssert.length + asList(t.assert).length;
  // promptfoo runs a test without assertions for its output: it passes whenever its target answers.
  if (written === 0 && (suffix === '' || suffix === '-1'))
    f.sink.warn(
      f.doc.locate(at),
      'output-only',
      'this test has no assertions: it passes whenever its target answers (promptfoo output-only test)',
      subject,
    );
  return { evaluators, compare };
}

/** The test's verdict rule: promptfoo's in promptfoo-shaped files, AgentV 5's threshold otherwise. */
function scoringOf(
  t: Record<string, unknown>,
  execution: Record<string, unknown>,
  env: TestEnv,
): CaseScoring {
  const run = isRecord(t.run) ? t.run : {};
  // AgentV 5's precedence: the test's run override, the test, default_test, the suite, 0.8.
  const own =
    threshold(run.threshold) ??
    threshold(execution.threshold) ??
    threshold(t.threshold) ??
    threshold(env.defaults.threshold);
  const scoring =
    env.flavour === 'promptfoo'
      ? { kind: 'promptfoo' as const, threshold: own ?? null }
      : { kind: 'threshold' as const, threshold: own ?? env.suiteThreshold };
  return scoring;
}

/** promptfoo `metadata.cluster`: the cases that move together (a number names one too). */
function clusterOf(metadata: unknown): { cluster?: string } {
  const c =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as { cluster?: unknown }).cluster
      : undefined;
  return typeof c === 'string' || typeof c === 'number' ? { cluster: String(c) } : {};
}
