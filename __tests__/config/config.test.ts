import path from 'node:path';
import { fallbackResultsFile, parseInputs } from '../../src/config/config.js';

describe('the results file of a run with invalid inputs', () => {
  const workspace = path.resolve('/ws');
  test('lands where the defaults put it when the inputs leave it unset', () => {
    const parsed = parseInputs({ suites: 'evals/*.yaml' });
    if (!('inputs' in parsed)) throw new Error(parsed.errors.join('; '));
    const { inputs } = parsed;
    expect(fallbackResultsFile({ concurrency: 'many' }, workspace)).toBe(
      path.resolve(workspace, inputs['working-directory'], inputs['results-file']),
    );
  });
  test('follows working-directory and results-file as given', () => {
    expect(fallbackResultsFile({ 'working-directory': 'sub', 'results-file': 'out/r.json' }, workspace)).toBe(
      path.resolve(workspace, 'sub', 'out/r.json'),
    );
  });
});
