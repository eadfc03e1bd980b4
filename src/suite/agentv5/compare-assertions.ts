import { checkUnknownKeys } from '../../core/unknown-keys.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { type CompareConfig, type EvaluatorConfig, type MaxScoreConfig } from '../types.js';
import { type AssertionContext, type CompareFound } from './assertion-context.js';
import { isRecord } from '../../core/is-record.js';

/**
 * promptfoo's comparison assertions, `select-best` and `max-score`, read from a test: they grade
 * no answer on its own, so they become no evaluator. The test's cases (one per prompt × provider)
 * each carry the comparison (`EvalCase.compare`), decided after all of them are graded
 * (src/pipeline/compare-siblings.ts).
 */

export const noComparison = (): CompareFound => ({ selectBest: null, maxScore: null, at: null });

const MAX_SCORE_KEYS = new Set(['method', 'weights', 'threshold']);

/**
 * One `select-best` or `max-score` entry, checked and noted in `ctx.compare`. Keys promptfoo
 * reads elsewhere or not at all for these (`threshold` beside `value`, `transform`, `rubricPrompt`)
 * are refused by name rather than quietly doing nothing.
 */
export function compareAssertion(
  type: 'select-best' | 'max-score',
  inverse: boolean,
  item: Record<string, unknown>,
  at: PathSegment[],
  name: string,
  ctx: AssertionContext,
): void {
  const { doc, sink, subject } = ctx;
  const fail = (where: PathSegment[], rule: string, message: string, key = false) =>
    sink.error(
      key ? doc.locateKey([...at, ...where]) : doc.locate([...at, ...where]),
      rule,
      message,
      subject,
    );
  const found = ctx.compare;
  if (at.filter((s) => s === 'assert').length > 1) {
    // promptfoo reads only a test's own list for these: in an assert-set it skips them silently.
    fail(
      ['type'],
      'unsupported-assertion',
      `${type} inside an assert-set is not run (promptfoo ignores it there); write it in the test's \`assert\``,
      true,
    );
    return;
  }
  if (!found || ctx.flavour !== 'promptfoo' || inverse) {
    fail(
      ['type'],
      'unsupported-assertion',
      inverse
        ? `'not-${type}' is not an assertion (promptfoo has no inverse comparison)`
        : `'${type}' compares the answers of a promptfoo test's prompts and providers; it is read in promptfoo-shaped configs only`,
      true,
    );
    return;
  }
  const refused: Record<string, string> = {
    transform: `${type} sees the answers as the targets gave them; an assertion's \`transform\` is not applied to it`,
    rubricPrompt: `${type} is asked with rubric-eval's own prompt; \`rubricPrompt\` is not applied to it`,
    threshold:
      type === 'max-score'
        ? "max-score's minimum is `value: {threshold: ...}` (promptfoo ignores a `threshold` beside `value`)"
        : 'select-best has no threshold: the answer the judge picks passes, the others fail',
  };
  for (const [key, why] of Object.entries(refused))
    if (item[key] !== undefined) fail([key], 'unsupported-key', why, true);
  if (type === 'select-best' && ctx.promptfoo?.transform)
    fail(
      ['type'],
      'unsupported-assertion',
      "select-best with the test's `options.transform` is not run: the judge would compare the answers untransformed, where promptfoo compares them transformed",
      true,
    );
  if (found.at === null) found.at = at;
  if (type === 'select-best') {
    if (found.selectBest)
      return fail([], 'duplicate', 'a test has one `select-best` (promptfoo runs only the first)');
    const v = item.value;
    if (typeof v !== 'string' || v.trim() === '')
      return fail(['value'], 'value', '`select-best` needs `value`: the criterion the best answer meets');
    found.selectBest = { criterion: ctx.render(v), name };
    return;
  }
  if (found.maxScore)
    return fail([], 'duplicate', 'a test has one `max-score` (promptfoo runs only the first)');
  const parsed = maxScoreValue(item.value, [...at, 'value'], ctx);
  if (parsed) found.maxScore = { ...parsed, name };
}

/** max-score's `value`: promptfoo's `{method, weights, threshold}`, every part optional. */
function maxScoreValue(
  v: unknown,
  at: PathSegment[],
  ctx: AssertionContext,
): Omit<NonNullable<CompareFound['maxScore']>, 'name'> | undefined {
  const { doc, sink, subject } = ctx;
  const fail = (where: PathSegment[], message: string) => {
    sink.error(doc.locate([...at, ...where]), 'value', message, subject);
    return undefined;
  };
  if (v === undefined || v === null) return { method: 'average', weights: {}, threshold: null };
  if (!isRecord(v))
    return fail(
      [],
      '`max-score` `value` is an object: `{method: average|sum, weights: {<type>: n}, threshold: n}`',
    );
  checkUnknownKeys(v, MAX_SCORE_KEYS, { sink, subject, locateKey: (k) => doc.locateKey([...at, k]) });
  const method = v.method ?? 'average';
  if (method !== 'average' && method !== 'sum')
    return fail(['method'], `\`method\` is \`average\` or \`sum\`, not '${String(method)}'`);
  const weights = v.weights ?? {};
  if (!isRecord(weights) || !Object.values(weights).every((w) => typeof w === 'number' && Number.isFinite(w)))
    return fail(['weights'], '`weights` maps assertion types to numbers (`{contains: 2, llm-rubric: 1}`)');
  const t = v.threshold;
  if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t)))
    return fail(['threshold'], '`threshold` is a number');
  return { method, weights: weights as Record<string, number>, threshold: typeof t === 'number' ? t : null };
}

/**
 * The comparison every case of a test carries: the sibling ids in promptfoo's order, and what
 * max-score weighs (each other assertion by its path; an assert-set's children, not the set, as
 * promptfoo flattens them). Null without a comparison; undefined after an error is reported.
 */
export function compareConfig(
  found: CompareFound,
  evaluators: readonly EvaluatorConfig[],
  cases: string[],
  ctx: Pick<AssertionContext, 'doc' | 'sink' | 'subject'>,
): CompareConfig | null | undefined {
  if (!found.at) return null;
  const { doc, sink, subject } = ctx;
  const what = found.selectBest ? 'select-best' : 'max-score';
  if (cases.length < 2) {
    sink.error(
      doc.locate(found.at),
      'compare-needs-two',
      `${what} compares a test's answers across its prompts and providers, and this test runs on ${cases.length === 0 ? 'none' : 'one (prompt, provider)'}; give the suite two or more`,
      subject,
    );
    return undefined;
  }
  let maxScore: MaxScoreConfig | null = null;
  if (found.maxScore) {
    const { weights, ...rest } = found.maxScore;
    const parts = scoredParts(evaluators, [], []).map(({ at, path, type }) => ({
      at,
      path,
      weight: type !== undefined && weights[type] !== undefined ? weights[type] : 1,
    }));
    if (parts.length === 0) {
      sink.error(
        doc.locate(found.at),
        'compare-needs-scores',
        "max-score picks the answer with the best score over the test's other assertions, and this test has none",
        subject,
      );
      return undefined;
    }
    maxScore = { ...rest, parts };
  }
  return { cases, maxScore, selectBest: found.selectBest };
}

function scoredParts(
  evaluators: readonly EvaluatorConfig[],
  above: string[],
  aboveAt: number[],
): { at: number[]; path: string[]; type: string | undefined }[] {
  return evaluators.flatMap((e, i) =>
    e.type === 'composite'
      ? scoredParts(e.children, [...above, e.name], [...aboveAt, i])
      : [{ at: [...aboveAt, i], path: [...above, e.name], type: e.assertionType }],
  );
}
