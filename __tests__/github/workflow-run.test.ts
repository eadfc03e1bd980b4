import { statusFromResults } from '../../src/github/commit-status.js';
import { recordRunOf } from '../../src/github/workflow-run.js';
import { invalidInputResults } from '../../src/report/results-file.js';

const SHA = 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678';
const repo = { owner: 'octo', repo: 'repo' };

test('the record run is read from the workflow_run event: id, head commit, the fork owner and branch, conclusion', () => {
  const run = recordRunOf(
    {
      workflow_run: {
        id: 9,
        head_sha: SHA,
        head_branch: 'feature',
        head_repository: { owner: { login: 'forker' } },
        conclusion: 'success',
        pull_requests: [],
      },
    },
    null,
    repo,
  );
  expect(run).toEqual({
    id: 9,
    headSha: SHA.toLowerCase(),
    headBranch: 'feature',
    headOwner: 'forker',
    conclusion: 'success',
    url: 'https://github.com/octo/repo/actions/runs/9',
  });
});

test.each([
  ['a pull_request event', { pull_request: { number: 1 } }, /runs on `workflow_run`/],
  [
    'a head sha that is not one',
    { workflow_run: { id: 9, head_sha: 'main' } },
    /no valid run id or head_sha/,
  ],
  ['no run id', { workflow_run: { head_sha: SHA } }, /no valid run id or head_sha/],
])('%s is not a judge stage event', (_n, payload, why) => {
  const run = recordRunOf(payload, null, repo);
  expect('error' in run && run.error).toMatch(why);
});

test('the status: error when nothing was judged, failure when the check fails, success otherwise; only our words', () => {
  const invalid = invalidInputResults(['the record bundle has two answers for case @someone']);
  expect(statusFromResults(invalid, true)).toEqual({
    state: 'error',
    description: 'rubric-eval: not judged (1 problem; see the run)',
  });
  const judged = {
    ...invalid,
    errors: [],
    verdict: 'borderline' as const,
    score: 0.7,
    counts: { pass: 1, borderline: 1, fail: 0, error: 0 },
  };
  expect(statusFromResults(judged, false)).toEqual({
    state: 'success',
    description: 'borderline · score 0.70 · 1 pass · 1 borderline · 0 fail (base suites)',
  });
  expect(statusFromResults(judged, true).state).toBe('failure');
  expect(statusFromResults({ ...judged, partial: true }, false).state).toBe('error');
});
