import { jobSummary, verdictLines } from '../../src/report/step-summary.js';
import { resultsOf, type Row } from '../helpers/results.js';

const rows: Row[] = [
  ['a.yaml', 'x', 'pass', 1],
  ['a.yaml', 'y', 'fail', 0.2],
];

test('the log ends with the verdict and the counts', () => {
  expect(verdictLines(resultsOf(rows))).toEqual([
    'verdict: fail · score 0.50 · 1 pass · 0 borderline · 1 fail · 0 error',
  ]);
});

test("a shard's job summary says first that it is one part of a run; the report is redacted", () => {
  const shard = resultsOf(rows, { shard: { index: 2, total: 3, plan_hash: 'h', planned: 6 } });
  const summary = jobSummary(shard, (t) => t.replace(/a\.yaml/g, '***'), null);
  expect(summary).toMatch(
    /^> \*\*Shard 2\/3\*\*: 2 of the 6 planned cases\. The merge job reports the whole run and decides the check\.\n\n/,
  );
  expect(summary).not.toContain('a.yaml');
  expect(jobSummary(resultsOf(rows), (t) => t, null)).not.toMatch(/Shard/);
});
