import {
  type CaseBaseline,
  type CaseResult,
  type Change,
  CHANGES,
  type RunBaseline,
  type RunResults,
} from '../core/results.js';
import { DEFINITION_VERSION } from '../suite/definition-hash.js';
import { changeOf, type Graded } from './change.js';
import { passCountOf } from './rate-change.js';
import { type BaselineResults } from './read-results.js';

/** Where a baseline came from: everything of the run-level `baseline` but the counts. */
export type BaselineOrigin = Omit<RunBaseline, 'changes' | 'removed' | 'margin'>;

const key = (suite: string, id: string) => `${suite}#${id}`;

function emptyChanges(): RunBaseline['changes'] {
  return Object.fromEntries([...CHANGES, 'removed'].map((k) => [k, 0])) as RunBaseline['changes'];
}

/**
 * The run compared with its baseline, case by case on (suite path, case id): each case gets its
 * `baseline`, the run its counts and the baseline's cases this run no longer has. Pure: returns
 * new results and leaves both inputs as they were.
 */
export function compareWithBaseline(
  head: RunResults,
  base: BaselineResults,
  origin: BaselineOrigin,
  margin: number,
): RunResults {
  const baseCases = new Map<string, Graded>();
  for (const s of base.suites)
    for (const c of s.cases) if (!baseCases.has(key(s.path, c.id))) baseCases.set(key(s.path, c.id), c);
  // Hashes of another version cover other things: equal ones would not mean an equal definition.
  const older = base.definitionVersion !== DEFINITION_VERSION;
  const changes = emptyChanges();
  const seen = new Set<string>();
  const suites = head.suites.map((s) => ({
    ...s,
    cases: s.cases.map((c) => {
      const k = key(s.path, c.id);
      seen.add(k);
      const was = baseCases.get(k);
      const change: Change =
        older && was?.definition_hash && c.definition_hash ? 'redefined' : changeOf(was, c, margin);
      changes[change]++;
      const baseline: CaseBaseline = {
        verdict: was?.verdict ?? null,
        score: was?.score ?? null,
        change,
        ...baseRate(was, c),
        ...baseAnswer(was, c),
      };
      return { ...c, baseline };
    }),
  }));
  // A cancelled run lacks cases it never reached: they are not removed, just not run.
  const removed = head.partial ? [] : [...baseCases.keys()].filter((k) => !seen.has(k));
  changes.removed = removed.length;
  const notice = older && changes.redefined > 0 ? olderHashesNotice(base.definitionVersion) : undefined;
  return {
    ...head,
    suites,
    baseline: { ...origin, margin, changes, removed, ...(notice ? { notice } : {}) },
    baseline_note: null,
  };
}

/** What of the base's answer a report shows beside the head's: enough to see what changed. */
const BASE_ANSWER_CHARS = 4000;

/** The base's answer, only where it differs from the head's (an unchanged one would double the file). */
function baseAnswer(was: Graded | undefined, head: CaseResult): { answer?: string } {
  const answer = was?.answer;
  if (typeof answer !== 'string' || answer === head.answer) return {};
  return {
    answer:
      answer.length > BASE_ANSWER_CHARS
        ? `${answer.slice(0, BASE_ANSWER_CHARS)}… [${answer.length} characters, cut]`
        : answer,
  };
}

/** Why every case of a baseline written by an older rubric-eval reads as redefined, said once. */
function olderHashesNotice(version: number | null): string {
  return `the baseline's definition hashes are of ${version === null ? 'an older rubric-eval' : `version ${version}`} (this one's, version ${DEFINITION_VERSION}, also cover grader scripts' contents and target definitions): its cases compare as redefined, not as fixed or broken`;
}

/** With repeats on either side, the baseline's rate beside its score (the comment shows both rates). */
function baseRate(was: Graded | undefined, head: Graded): Partial<CaseBaseline> {
  if (!was || !((was.repeats ?? 0) > 1 || (head.repeats ?? 0) > 1)) return {};
  const count = passCountOf(was);
  return { pass_rate: count.passed / count.answers, passed: count.passed, repeats: count.answers };
}

/** Counts in the order a reviewer reads them, for one-line summaries. */
export const CHANGE_ORDER = [
  'broken',
  'regressed',
  'fixed',
  'improved',
  'new',
  'redefined',
  'removed',
] as const;
