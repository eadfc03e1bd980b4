import { aggregateResults, type AggregateInput, aggregateRun } from '../../src/pipeline/aggregate.js';
import { type CaseResult, emptyUsage } from '../../src/core/results.js';

const kase = (id: string, verdict: CaseResult['verdict'], score: number, calls = 1): CaseResult => ({
  id,
  verdict,
  score,
  gating_violations: verdict === 'fail' ? [`${id}-1: required item not satisfied`] : [],
  evaluators: [],
  target: 'default',
  answer: null,
  duration_ms: 5,
  usage: { ...emptyUsage(), judge_calls: calls, prompt_tokens: 100, completion_tokens: 10 },
});

const input = (over: Partial<AggregateInput> = {}): AggregateInput => ({
  suites: [
    { path: 'a.yaml', description: null, cases: [kase('a1', 'pass', 1), kase('a2', 'borderline', 0.7)] },
    { path: 'b.yaml', description: null, cases: [kase('b1', 'pass', 0.9)] },
  ],
  rubric: null,
  errors: [],
  warnings: [],
  partial: false,
  judge: null,
  history: [],
  commit: 'abc',
  started: Date.now() - 50,
  ...over,
});

describe('aggregate stage', () => {
  test('run verdict, score, counts, usage and a history entry from the cases', () => {
    const r = aggregateResults(input());
    expect(r).toMatchObject({
      verdict: 'borderline',
      score: 0.8667,
      counts: { pass: 2, borderline: 1, fail: 0, error: 0 },
      usage: { judge_calls: 3, prompt_tokens: 300, completion_tokens: 30 },
      partial: false,
    });
    expect(r.history).toEqual([
      expect.objectContaining({ iteration: 0, commit: 'abc', verdict: 'borderline', rubric_verdict: null }),
    ]);
    expect(r.duration_ms).toBeGreaterThanOrEqual(50);
  });

  test('a failing case names itself in the history feedback', () => {
    const r = aggregateResults(
      input({ suites: [{ path: 'a.yaml', description: null, cases: [kase('a1', 'fail', 0.3)] }] }),
    );
    expect(r.verdict).toBe('fail');
    expect(r.history[0]!.feedback).toBe('a1: a1-1: required item not satisfied');
  });

  test('errors and a cancelled run fail even when every case passed', () => {
    expect(aggregateResults(input({ errors: ['inputs: bad'] })).verdict).toBe('fail');
    expect(aggregateResults(input({ partial: true })).verdict).toBe('fail');
  });
});

describe('run aggregation', () => {
  test('mean score, fail on any fail or error, borderline on any borderline', () => {
    expect(
      aggregateRun(
        [
          { score: 1, verdict: 'pass' },
          { score: 0.7, verdict: 'borderline' },
        ],
        null,
      ),
    ).toEqual({
      score: 0.85,
      verdict: 'borderline',
      counts: { pass: 1, borderline: 1, fail: 0, error: 0 },
    });
    expect(
      aggregateRun(
        [
          { score: 1, verdict: 'pass' },
          { score: 0, verdict: 'error' },
        ],
        null,
      ).verdict,
    ).toBe('fail');
    expect(aggregateRun([{ score: 1, verdict: 'pass' }], { score: 0.5, verdict: 'fail' }).verdict).toBe(
      'fail',
    );
  });
  test('a run with nothing evaluated is a fail, not a vacuous pass', () => {
    expect(aggregateRun([], null).verdict).toBe('fail');
  });
});
