import { type DiagnosticSink, excerpt } from '../../core/diagnostics.js';
import { didYouMean, nearest } from '../../core/did-you-mean.js';
import { type PathSegment, type SourceDocument } from '../../core/yaml-source.js';
import { isRecord } from '../../core/is-record.js';

/**
 * Every key of an AgentV 5 / promptfoo suite, test, `options` and assertion is one this project
 * knows: run, refused by name (promptfoo-config.ts), or known to change no grade and ignored
 * (some with a warning). Anything else is a located error with the nearest known key, since
 * `treshold:` passing silently would be a different grade than the one written.
 */

/** Suite keys promptfoo has that change no grade: known, ignored. */
const IGNORED_SUITE_KEYS = [
  'sharing',
  'outputPath',
  'tags',
  'metadata',
  'writeLatestResults',
  'commandLineOptions',
  'tracing',
  'author',
  'version',
  'governance',
];
/** Ignored, with a warning: a user could expect them to change the run. */
const WARNED_SUITE_KEYS: Record<string, string> = {
  env: 'provider environment values are not read from the suite; set them in the workflow',
  evaluateOptions: 'evaluation options (repeat, delay, cache, concurrency) come from the action’s inputs',
  evaluate_options: 'evaluation options (repeat, delay, cache, concurrency) come from the action’s inputs',
  derivedMetrics:
    'derived metrics are not computed (in promptfoo they are shown beside the results and decide no test’s pass or fail)',
  defaults: 'AgentV `defaults` are not read by rubric-eval; put shared vars and assertions in `default_test`',
  environment:
    'AgentV workspace environments are not set up by rubric-eval; prepare the workspace in an earlier step',
};

const SUITE_KEYS = [
  '$schema',
  'name',
  'description',
  'prompts',
  'prompt',
  'providers',
  'targets',
  'tests',
  'scenarios',
  'assertionTemplates',
  'default_test',
  'defaultTest',
  'assert',
  'threshold',
  'min_pass_rate',
  'repeat',
  'execution',
  'workspace',
  'target',
  'extensions',
  'nunjucksFilters',
  'redteam',
  ...IGNORED_SUITE_KEYS,
  ...Object.keys(WARNED_SUITE_KEYS),
];

const TEST_KEYS = [
  'id',
  'description',
  'vars',
  'assert',
  'threshold',
  'options',
  'metadata',
  'provider',
  'providers',
  'prompts',
  'providerOutput',
  'assertScoringFunction',
  // AgentV 5
  'criteria',
  'execution',
  'input',
  'expected_output',
  'conversation_id',
  'run',
  // AgentV 5's live conversations: `turns` is refused by name (promptfoo-config.ts), these with it
  'turns',
  'mode',
  'aggregation',
  'on_turn_failure',
];

const OPTION_KEYS = [
  'disableDefaultAsserts',
  'transform',
  'postprocess',
  'transformVars',
  'provider',
  'rubricPrompt',
  'factuality',
  'prefix',
  'suffix',
  'storeOutputAs',
  'runSerially',
  'disableVarExpansion',
  'disableConversationVar',
  'repeat',
];

const ASSERTION_KEYS = [
  'type',
  'value',
  'threshold',
  'weight',
  'metric',
  'provider',
  'rubricPrompt',
  'transform',
  'contextTransform',
  'config',
  'assert',
  '$ref',
  // AgentV 5
  'id',
  'name',
  'required',
  'min_score',
  'negate',
  'prompt',
  'command',
  'script',
  'cwd',
  'flags',
  // AgentV 5's grader settings on `llm-rubric` (the judge is the workflow's: read by no one here)
  'target',
  'temperature',
  'max_steps',
];

interface Where {
  doc: SourceDocument;
  sink: DiagnosticSink;
  subject: string;
}

/**
 * A known key close to `key`: a typo, else one it abbreviates (its letters in order, `tresh` in
 * `threshold`), else a near word.
 */
function suggestion(key: string, known: readonly string[]): string | null {
  const words = known.filter((w) => /^[a-z]/i.test(w));
  const typo = didYouMean(key, words);
  if (typo) return typo;
  const k = key.toLowerCase();
  const abbreviates = (w: string) => {
    let i = 0;
    for (const ch of w.toLowerCase()) if (ch === k[i]) i++;
    return i === k.length;
  };
  const short = k.length >= 3 ? words.filter(abbreviates).sort((a, b) => a.length - b.length)[0] : undefined;
  return short ?? nearest(key, words);
}

function check(
  obj: Record<string, unknown>,
  known: readonly string[],
  at: PathSegment[],
  what: string,
  w: Where,
): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const near = suggestion(key, known);
    w.sink.error(
      w.doc.locateKey([...at, key]),
      'unknown-key',
      `unknown ${what} key '${excerpt(key)}'${near ? `: did you mean '${near}'?` : ''}`,
      w.subject,
    );
  }
}

/** The suite's own keys (tests are checked one by one, with their own subject). */
export function checkSuiteKeys(
  raw: Record<string, unknown>,
  doc: SourceDocument,
  sink: DiagnosticSink,
): void {
  const w = { doc, sink, subject: 'suite' };
  check(raw, SUITE_KEYS, [], 'suite', w);
  for (const [key, why] of Object.entries(WARNED_SUITE_KEYS))
    if (raw[key] !== undefined)
      sink.warn(doc.locateKey([key]), 'ignored-key', `\`${key}\` is ignored: ${why}`, 'suite');
  for (const key of ['defaultTest', 'default_test'])
    if (isRecord(raw[key])) checkTestKeys(raw[key], [key], 'defaultTest', w);
  if (Array.isArray(raw.assert)) checkAssertionKeys(raw.assert, ['assert'], w);
  if (isRecord(raw.assertionTemplates))
    for (const [name, a] of Object.entries(raw.assertionTemplates))
      if (isRecord(a)) check(a, ASSERTION_KEYS, ['assertionTemplates', name], 'assertion', w);
}

/** A test's keys, its `options`' and its assertions' (assert-sets' children too). */
export function checkTestKeys(t: Record<string, unknown>, at: PathSegment[], what: string, w: Where): void {
  check(t, TEST_KEYS, at, what, w);
  if (isRecord(t.options)) check(t.options, OPTION_KEYS, [...at, 'options'], 'options', w);
  if (Array.isArray(t.assert)) checkAssertionKeys(t.assert, [...at, 'assert'], w);
}

/**
 * Assertion kinds whose other keys are their configuration (a code judge's `config`, a measured
 * check's limits, checked where they are mapped): only the shared keys are checked for them.
 */
const OPEN_ASSERTIONS =
  /^(not-)?(script|code-judge|code_judge|latency|cost|token-usage|field-accuracy|execution-metrics)$/;

function checkAssertionKeys(list: unknown[], at: PathSegment[], w: Where): void {
  list.forEach((a, i) => {
    if (!isRecord(a)) return;
    if (typeof a.type !== 'string' || !OPEN_ASSERTIONS.test(a.type))
      check(a, ASSERTION_KEYS, [...at, i], 'assertion', w);
    if (Array.isArray(a.assert)) checkAssertionKeys(a.assert, [...at, i, 'assert'], w);
  });
}
