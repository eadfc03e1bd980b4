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

describe('the trusted stage and shards', () => {
  const errorsOf = (raw: Record<string, string>) => {
    const parsed = parseInputs({ suites: 'evals/*.yaml', ...raw });
    return 'errors' in parsed ? parsed.errors : [];
  };
  test('the record stage runs as one job of a matrix', () => {
    const parsed = parseInputs({ suites: 'evals/*.yaml', stage: 'record', shard: '2/4' });
    expect('inputs' in parsed && parsed.inputs.shard).toEqual({ index: 2, total: 4 });
  });
  test('the judge stage is one job, and neither stage merges results files', () => {
    expect(errorsOf({ stage: 'judge', shard: '1/2' })).toEqual([
      "stage: judge takes no `shard`: give `shard` to the record matrix jobs; one judge job judges every shard's answers",
    ]);
    expect(errorsOf({ stage: 'record', merge: 'shards/*.json' })).toEqual([
      "stage: record and judge take no `merge`: the judge stage reads every shard's record bundle from the record run and merges them itself",
    ]);
  });
});
