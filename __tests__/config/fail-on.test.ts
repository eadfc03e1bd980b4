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
