import { aggregateResults } from '../../src/pipeline/aggregate.js';
import { tripsFailOn } from '../../src/config/fail-on.js';
import { finishRun } from '../../src/pipeline/finish.js';
import { Redactor } from '../../src/exec/redact.js';

const stats = { judgeCalls: 7, retries: 2, repairs: 1, rateLimited: 1, timeouts: 0, peakInFlight: 4 };
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

describe('results stage', () => {
  test('an executed run carries how the judge endpoint behaved', () => {
    const o = finishRun(results(), { diagnostics: [], redactor: new Redactor([]), stats, executed: true });
    expect(o.results.judge_stats).toEqual({
      http_calls: 7,
      retries: 2,
      repairs: 1,
      rate_limited: 1,
      timeouts: 0,
      peak_in_flight: 4,
    });
    expect(o.stats).toBe(stats);
  });

  test('a run stopped by invalid input has no judge stats', () => {
    const o = finishRun(results(), { diagnostics: [], redactor: new Redactor([]), stats, executed: false });
    expect(o.results.judge_stats).toBeUndefined();
  });

  test.each([
    ['fail', 'fail', true],
    ['borderline', 'fail', false],
    ['borderline', 'borderline', true],
    ['pass', 'borderline', false],
    ['fail', 'never', false],
  ] as const)('verdict %s with fail-on %s trips: %s', (verdict, failOn, trips) => {
    expect(tripsFailOn(verdict, failOn)).toBe(trips);
  });
});
