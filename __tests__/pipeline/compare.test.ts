import { aggregateResults } from '../../src/pipeline/aggregate.js';
import { compareWithBaseline } from '../../src/pipeline/compare.js';

const results = () =>
  aggregateResults({
    suites: [],
    rubric: null,
    errors: [],
    warnings: [],
    partial: false,
    judge: null,
    history: [],
    commit: null,
    started: 0,
  });

describe('compare stage', () => {
  test('without a baseline the results come back unchanged', () => {
    const r = results();
    const snapshot = structuredClone(r);
    expect(compareWithBaseline(r, null)).toEqual(snapshot);
  });
});
