import { checkFailure } from '../../src/config/fail-on.js';
import { resultsOf } from '../helpers/results.js';

const failing = resultsOf([
  ['a.yaml', 'x', 'fail', 0.2],
  ['a.yaml', 'y', 'pass', 1],
]);

test('the check fails with the one-line reason when the verdict trips fail-on, and passes otherwise', () => {
  expect(checkFailure(failing, { failOn: 'fail', shard: null })).toBe(
    'rubric-eval: fail (score 0.50): 1 failed',
  );
  expect(checkFailure(failing, { failOn: 'never', shard: null })).toBeNull();
  expect(checkFailure(resultsOf([['a.yaml', 'y', 'pass', 1]]), { failOn: 'fail' })).toBeNull();
});

test("a shard never fails on its verdict: the merge decides the run's check", () => {
  expect(checkFailure(failing, { failOn: 'fail', shard: { index: 2, total: 3 } })).toBeNull();
  expect(
    checkFailure(resultsOf([], { partial: true }), { failOn: 'fail', shard: { index: 1, total: 2 } }),
  ).toBeNull();
});

test('under fail-on: regression a skipped case still fails the check: never judged is no evidence of no regression', () => {
  const skipped = resultsOf([['a.yaml', 'x', 'skipped', 0]], {
    baseline: {
      source: 'file',
      commit: null,
      run_id: null,
      run_url: null,
      artifact_id: null,
      created_at: null,
      file: 'base.json',
      margin: 0.1,
      changes: { broken: 0, regressed: 0, fixed: 0, improved: 0, same: 1, new: 0, redefined: 0, removed: 0 },
      removed: [],
    },
  });
  expect(checkFailure(skipped, { failOn: 'regression', shard: null })).toMatch(/1 skipped, not judged/);
});
