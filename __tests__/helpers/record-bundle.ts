import { type RecordBundle, type RecordedAnswer } from '../../src/pipeline/record-bundle.js';

/** A recorded answer as the record stage writes it (a target that answered). */
export const recordedAnswer = (
  suite: string,
  id: string,
  answer: string | null = `answer ${id}`,
): RecordedAnswer => ({
  suite,
  id,
  answer,
  target: 'default',
  duration_ms: 1,
  usage: null,
  error: null,
});

/** A well-formed bundle of pull request #4 of o/r, with what a test sets. */
export const recordBundle = (over: Partial<RecordBundle> = {}): RecordBundle => ({
  record: 1,
  repository: 'o/r',
  pr_number: 4,
  head_sha: 'a'.repeat(40),
  base_sha: null,
  plan_hash: 'h',
  answers: [],
  gates: [],
  ...over,
});
