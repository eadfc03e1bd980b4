import { type CaseResult } from '../core/results.js';
import { DEFAULT_MIN_CASE_PASS_RATE } from '../core/repeat-setting.js';
import { answersToExclude } from '../evaluators/pass-rate.js';
import { collectRepeats, combineRepeats } from '../evaluators/repeated-case.js';
import { type TargetRunner } from '../targets/providers.js';
import { type PlannedCase } from './plan.js';

/**
 * A target whose answer is fixed in advance (a mock, an answers file, a batch run that answers
 * each case once, an answer the pull request's run recorded) gives the same text every time: repeating it would count one answer many times
 * and claim evidence it does not have.
 */
function answersVary(runner: TargetRunner): boolean {
  return (
    runner.provider !== 'mock' &&
    runner.provider !== 'answers-file' &&
    // The judge stage: the pull request's run recorded one answer per case.
    runner.provider !== 'recorded' &&
    !runner.enlist
  );
}

/**
 * The run's one warning that a fixed count is too few for the interval to exclude the rate: the
 * verdicts still read the observed rate (the README's repeats), this says how little that shows.
 */
function fewAnswers(n: number, minRate: number): string {
  const need = answersToExclude(minRate);
  const enough = Number.isFinite(need) ? `it takes ${need}` : 'no number of answers can';
  return (
    `repeat: ${n} answers per case are too few for the interval to exclude min-case-pass-rate ${minRate} (${enough}): ` +
    `each verdict is the observed pass rate against ${minRate}, with the interval beside it; use repeat: auto to decide on the evidence`
  );
}

/**
 * Repeats inside execute (README "Repeats"): the case's answers, each judged as one case is
 * (judge samples apply to each), combined into one case with its pass rate and verdict. A case
 * with `repeat: 1` is exactly today's case. `answerOnce(repeat)` runs one answer; undefined when
 * the run was cancelled mid-case.
 *
 * Budget hook: every answer goes through `answerOnce` and its usage is summed into the case, so a
 * spend cap that checks before each call and counts case usage counts every repeat.
 */
export function repeatedCases(warn: (message: string) => void) {
  const warned = new Set<TargetRunner>();
  let warnedFew = false;
  return async (
    planned: PlannedCase,
    /** `repeat` is undefined for a case judged on one answer (nothing repeats, nothing to tell apart). */
    answerOnce: (repeat?: number) => Promise<CaseResult | undefined>,
    signal: AbortSignal | undefined,
  ): Promise<CaseResult | undefined> => {
    const setting = planned.repeat ?? 1;
    if (setting === 1) return answerOnce();
    const runner = planned.target.runner;
    if (!answersVary(runner)) {
      if (!warned.has(runner)) {
        warned.add(runner);
        warn(
          `repeat: target '${runner.name}' (${runner.enlist ? 'batched cli' : runner.provider}) gives the same answer every time; its cases are judged on one answer`,
        );
      }
      return answerOnce();
    }
    const minRate = planned.minCasePassRate ?? DEFAULT_MIN_CASE_PASS_RATE;
    if (setting !== 'auto' && !warnedFew && setting < answersToExclude(minRate)) {
      warnedFew = true;
      warn(fewAnswers(setting, minRate));
    }
    const answers = await collectRepeats(setting, minRate, answerOnce, signal);
    return answers && answers.length > 0 ? combineRepeats(answers, { setting, minRate }) : undefined;
  };
}
