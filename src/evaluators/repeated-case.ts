import { addUsage, type CaseResult, emptyUsage, type RepeatAnswer } from '../core/results.js';
import { RubricEvalError } from '../core/errors.js';
import { MAX_REPEATS, type RepeatRule, type RepeatSetting } from '../core/repeat-setting.js';
import { caseVerdict, firstAnswers, passRateBounds, wantsAnotherAnswer } from './pass-rate.js';

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** What the repeat loop needs to know of one judged answer. */
type AnswerOutcome = 'pass' | 'not-pass' | 'error';

const outcomeOf = (c: Pick<CaseResult, 'verdict'>): AnswerOutcome =>
  c.verdict === 'error' ? 'error' : c.verdict === 'pass' ? 'pass' : 'not-pass';

/**
 * The answers of one case under `repeat`, each judged by `answerOnce(repeat)` (1-based, so the
 * target and its cache see which repeat it is). A fixed count asks for all of them at once; `auto`
 * asks one at a time while the evidence cannot decide the case and still could (at most 20). An
 * errored answer ends the case: more answers from a failing target or judge prove nothing.
 * Undefined when the run was cancelled mid-case.
 */
export async function collectRepeats<T extends Pick<CaseResult, 'verdict'>>(
  setting: RepeatSetting,
  minRate: number,
  answerOnce: (repeat: number) => Promise<T | undefined>,
  signal?: AbortSignal,
): Promise<T[] | undefined> {
  if (setting !== 'auto') {
    const all = await Promise.all(Array.from({ length: firstAnswers(setting) }, (_, i) => answerOnce(i + 1)));
    return all.some((a) => a === undefined) ? undefined : (all as T[]);
  }
  const answers: T[] = [];
  let passed = 0;
  while (wantsAnotherAnswer(passed, answers.length, minRate, MAX_REPEATS)) {
    if (signal?.aborted) return undefined;
    const a = await answerOnce(answers.length + 1);
    if (!a) return undefined;
    answers.push(a);
    const outcome = outcomeOf(a);
    if (outcome === 'error') break;
    if (outcome === 'pass') passed++;
  }
  return answers;
}

/** One judged answer as a repeated case keeps it: everything of the case but its identity. */
function repeatAnswer(c: CaseResult, repeat: number): RepeatAnswer {
  const a: RepeatAnswer = {
    repeat,
    verdict: c.verdict === 'inconclusive' ? 'fail' : c.verdict,
    score: c.score,
    gating_violations: c.gating_violations,
    evaluators: c.evaluators,
    answer: c.answer,
  };
  if (c.answer_cut) a.answer_cut = c.answer_cut;
  if (c.unstable) a.unstable = true;
  if (c.error !== undefined) a.error = c.error;
  a.duration_ms = c.duration_ms;
  if (c.usage) a.usage = c.usage;
  return a;
}

/** One answer of a repeated case as the case it was when judged (what the repeats are combined from). */
export function answerAsCase(c: CaseResult, a: RepeatAnswer): CaseResult {
  const one: CaseResult = {
    id: c.id,
    target: c.target,
    verdict: a.verdict,
    score: a.score,
    gating_violations: a.gating_violations,
    evaluators: a.evaluators,
    answer: a.answer,
    duration_ms: a.duration_ms ?? 0,
  };
  if (c.definition_hash !== undefined) one.definition_hash = c.definition_hash;
  if (c.line !== undefined) one.line = c.line;
  if (a.answer_cut) one.answer_cut = a.answer_cut;
  if (a.unstable) one.unstable = true;
  if (a.error !== undefined) one.error = a.error;
  if (a.usage) one.usage = a.usage;
  return one;
}

/**
 * A case judged over several answers: `pass_rate` (passing answers / answers) with its exact
 * bounds, and its verdict under the rule (`caseVerdict`: a fixed count reads the observed rate,
 * `auto` the evidence), or `error` when an answer errored. The score is the answers' mean. The case-level evaluators, violations and
 * answer are those of a representative answer, so every report's "why" still reads: the first
 * answer that did not pass, else the first. Usage sums every answer (a budget counts every repeat).
 */
export function combineRepeats(answers: readonly CaseResult[], rule: RepeatRule): CaseResult {
  const first = answers[0];
  if (!first) throw new RubricEvalError('combineRepeats of no answers');
  const n = answers.length;
  const passed = answers.filter((a) => outcomeOf(a) === 'pass').length;
  const errored = answers.find((a) => a.verdict === 'error');
  const shown = errored ?? answers.find((a) => outcomeOf(a) !== 'pass') ?? first;
  const { low, high } = passRateBounds(passed, n);
  const usage = emptyUsage();
  for (const a of answers) addUsage(usage, a.usage);
  const result: CaseResult = {
    id: first.id,
    definition_hash: first.definition_hash,
    line: first.line,
    target: first.target,
    gating_violations: shown.gating_violations,
    score: round4(answers.reduce((s, a) => s + a.score, 0) / n),
    verdict: errored ? 'error' : caseVerdict(passed, n, rule),
    repeats: n,
    pass_rate: round4(passed / n),
    pass_rate_low: round4(low),
    pass_rate_high: round4(high),
    evaluators: shown.evaluators,
    answer: shown.answer,
    answers: answers.map((a, i) => repeatAnswer(a, i + 1)),
    duration_ms: answers.reduce((s, a) => s + a.duration_ms, 0),
    usage,
  };
  if (first.definition_hash === undefined) delete result.definition_hash;
  if (first.line === undefined) delete result.line;
  if (shown.answer_cut) result.answer_cut = shown.answer_cut;
  if (errored?.error !== undefined) result.error = `answer ${answers.indexOf(errored) + 1}: ${errored.error}`;
  if (answers.some((a) => a.unstable)) result.unstable = true;
  return result;
}
