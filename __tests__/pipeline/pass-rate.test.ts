import { applyPassRates } from '../../src/pipeline/pass-rate.js';
import { aggregateResults } from '../../src/pipeline/aggregate.js';
import { checkFailures, failureMessage } from '../../src/config/fail-on.js';
import { type CaseResult, type SuiteResult } from '../../src/core/results.js';

const c = (id: string, verdict: CaseResult['verdict']): CaseResult => ({
  id,
  verdict,
  score: verdict === 'pass' ? 1 : 0.3,
  gating_violations: verdict === 'fail' ? ['rubric-1: required item not satisfied'] : [],
  evaluators: [],
  target: 'default',
  answer: null,
  duration_ms: 1,
});

/** `passed` passes then failures up to `total`, in a suite. */
const suite = (path: string, passed: number, total: number, min?: number): SuiteResult => ({
  path,
  description: null,
  cases: Array.from({ length: total }, (_, i) => c(`${path}-${i}`, i < passed ? 'pass' : 'fail')),
  ...(min !== undefined ? { min_pass_rate: min } : {}),
});

const run = (suites: SuiteResult[], extra: { partial?: boolean; errors?: string[] } = {}) =>
  aggregateResults({
    suites,
    rubric: null,
    errors: extra.errors ?? [],
    warnings: [],
    partial: extra.partial ?? false,
    judge: null,
    history: [],
    commit: null,
    started: Date.now(),
  });

test('without a gate nothing changes: any failing case fails the run', () => {
  const r = run([suite('a.yaml', 19, 20)]);
  expect(applyPassRates(r, null)).toBe(r);
  expect(r.verdict).toBe('fail');
});

test('at or above the rate the run passes with failing cases; the rates are in the results', () => {
  const r = applyPassRates(run([suite('a.yaml', 19, 20), suite('b.yaml', 10, 10)]), 0.95);
  expect(r.verdict).toBe('pass');
  expect(r.history.at(-1)!.verdict).toBe('pass');
  expect(r.pass_rates).toEqual([
    { suite: null, passed: 29, total: 30, rate: 29 / 30, min: 0.95, met: true },
    { suite: 'a.yaml', passed: 19, total: 20, rate: 0.95, min: 0.95, met: true },
    { suite: 'b.yaml', passed: 10, total: 10, rate: 1, min: 0.95, met: true },
  ]);
  expect(checkFailures(r, 'fail')).toEqual([]);
});

test('below the rate in one suite the check fails naming the suite and both rates, though overall is met', () => {
  const r = applyPassRates(run([suite('a.yaml', 18, 20), suite('b.yaml', 80, 80)]), 0.95);
  expect(r.verdict).toBe('fail');
  expect(checkFailures(r, 'fail')).toEqual(['suite a.yaml: pass rate 90.0% (18/20) below min 95.0%']);
  expect(failureMessage(r, 'fail')).toContain('suite a.yaml: pass rate 90.0% (18/20) below min 95.0%');
  expect(checkFailures(r, 'never')).toEqual([]);
});

test('a suite’s own min_pass_rate overrides the input; without the input only that suite is gated', () => {
  const own = applyPassRates(run([suite('a.yaml', 7, 10, 0.7), suite('b.yaml', 10, 10)]), null);
  expect(own.pass_rates!.map((p) => [p.suite, p.met])).toEqual([['a.yaml', true]]);
  expect(own.verdict).toBe('pass');
  // b.yaml has no gate of its own: each of its cases must pass, as without any gate.
  const ungated = applyPassRates(run([suite('a.yaml', 7, 10, 0.7), suite('b.yaml', 9, 10)]), null);
  expect(ungated.verdict).toBe('fail');
  expect(checkFailures(ungated, 'fail')).toEqual(['cases failed in a suite without a pass-rate gate']);
  // An out-of-range value (from an untrusted shard file) is ignored, not obeyed.
  expect(applyPassRates(run([suite('a.yaml', 0, 10, -1)]), null).pass_rates).toBeUndefined();
});

test('a rate never forgives what is not a case failing: cancelled, invalid input, skipped, an empty suite', () => {
  expect(applyPassRates(run([suite('a.yaml', 10, 10)], { partial: true }), 0.5).verdict).toBe('fail');
  expect(applyPassRates(run([], { errors: ['bad'] }), 0.5).verdict).toBe('fail');
  const skipped = suite('a.yaml', 10, 10);
  skipped.cases.push({ ...c('late', 'skipped'), skipped: 'budget' });
  const r = applyPassRates(run([skipped]), 0.5);
  expect(r.verdict).toBe('fail');
  expect(checkFailures(r, 'fail')).toEqual(['1 skipped, not judged']);
  expect(applyPassRates(run([suite('a.yaml', 0, 0)]), 0.5).pass_rates![0]!.met).toBe(false);
});
