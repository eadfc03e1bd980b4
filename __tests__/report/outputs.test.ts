import { invalidInputOutputs, OUTPUT_NAMES, runOutputs } from '../../src/report/outputs.js';
import { resultsOf } from '../helpers/results.js';

test('every output of a finished run, an errored case counted as failed, the score to 4 decimals', () => {
  const results = resultsOf(
    [
      ['a.yaml', 'p', 'pass', 1],
      ['a.yaml', 'b', 'borderline', 0.6],
      ['a.yaml', 'f', 'fail', 0.1],
      ['a.yaml', 'e', 'error', 0],
    ],
    { score: 0.42857 },
  );
  const out = runOutputs(results, '/w/results.json', 'https://github.com/o/r/pull/7#issuecomment-1');
  expect(Object.keys(out)).toEqual([...OUTPUT_NAMES]);
  expect(out).toEqual({
    verdict: 'fail',
    score: '0.4286',
    passed: '1',
    borderline: '1',
    failed: '2',
    inconclusive: '0',
    'results-file': '/w/results.json',
    'comment-url': 'https://github.com/o/r/pull/7#issuecomment-1',
  });
});

test('invalid inputs: the failed verdict and where the results file says why, nothing else', () => {
  expect(invalidInputOutputs('/w/r.json')).toEqual({ verdict: 'fail', 'results-file': '/w/r.json' });
});
