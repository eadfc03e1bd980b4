import { type CaseResult, emptyUsage, type RunResults } from '../../src/core/results.js';
import { combineRepeats } from '../../src/evaluators/repeated-case.js';
import { aggregateResults } from '../../src/pipeline/aggregate.js';
import { renderReport } from '../../src/report/comment-body.js';
import { answerMarks, passRateCell, passRateText } from '../../src/report/repeats.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { checkFailures } from '../../src/config/fail-on.js';
import { compareWithBaseline } from '../../src/baseline/compare.js';
import { DEFINITION_VERSION } from '../../src/suite/definition-hash.js';

const answer = (id: string, pass: boolean): CaseResult => ({
  id,
  verdict: pass ? 'pass' : 'fail',
  score: pass ? 1 : 0.5,
  gating_violations: pass ? [] : ['names-paris: required item not satisfied'],
  evaluators: [],
  target: 'app',
  answer: pass ? 'Paris' : 'Lyon',
  duration_ms: 3,
  usage: emptyUsage(),
});
const repeated = (id: string, marks: string) =>
  combineRepeats(
    [...marks].map((m) => answer(id, m === '✓')),
    { setting: 'auto', minRate: 0.8 },
  );

function run(cases: CaseResult[]): RunResults {
  return aggregateResults({
    suites: [{ path: 'evals/flaky.yaml', description: null, cases }],
    rubric: null,
    errors: [],
    warnings: [],
    partial: false,
    judge: null,
    history: [],
    commit: null,
    started: Date.now(),
  });
}

test('a repeated case: 4/5 with the exact interval on hover, and each answer when it did not pass', () => {
  const c = repeated('flaky', '✓✓✗✓✓');
  expect(c.verdict).toBe('inconclusive');
  expect(answerMarks(c)).toBe('✓✓✗✓✓');
  expect(passRateCell(c)).toBe(
    '<abbr title="4 of 5 answers passed (rate 0.80); exact 90% interval 0.34–0.99">4/5</abbr> ✓✓✗✓✓',
  );
  expect(passRateText(c)).toBe('4/5 [0.34–0.99] ✓✓✗✓✓');
  // A passing case shows no marks: there is nothing to look at.
  expect(passRateCell(repeated('solid', '✓'.repeat(14)))).toMatch(/>14\/14<\/abbr>$/);
  // One answer: today's report.
  expect(passRateCell(answer('once', true))).toBeNull();
});

test('the comment and the terminal list inconclusive cases first, and count them', () => {
  const results = run([
    answer('single-fail', false),
    repeated('solid', '✓'.repeat(14)),
    repeated('broken', '✗✗'),
    repeated('flaky', '✓✓✗✓✓'),
  ]);
  expect(results.counts).toEqual({ pass: 1, borderline: 0, fail: 2, error: 0, inconclusive: 1 });
  const md = renderReport(results);
  expect(md).toContain('4 cases:** 1 pass · 0 borderline · 2 fail · 1 inconclusive');
  expect(md.indexOf('`flaky`')).toBeLessThan(md.indexOf('`broken`'));
  expect(md.indexOf('`flaky`')).toBeLessThan(md.indexOf('`single-fail`'));
  expect(md).toContain('| ❔ | `flaky` |');
  expect(md).toContain('repeats: 21 answers for 3 cases');
  const term = renderTerminal(results);
  const lines = term.split('\n');
  expect(lines.findIndex((l) => l.includes('flaky'))).toBeLessThan(
    lines.findIndex((l) => l.includes('single-fail')),
  );
  expect(term).toContain('passed 4/5 [0.34–0.99] ✓✓✗✓✓');
  expect(term).toContain('1 inconclusive)');
});

test('inconclusive makes the run borderline; only fail-on inconclusive or borderline fail on it', () => {
  const results = run([repeated('solid', '✓'.repeat(14)), repeated('flaky', '✓✓✗✓✓')]);
  expect(results.verdict).toBe('borderline');
  expect(checkFailures(results, 'fail')).toEqual([]);
  expect(checkFailures(results, 'inconclusive')).toEqual(['1 inconclusive']);
  expect(checkFailures(results, 'borderline')).toEqual(['1 inconclusive']);
  expect(checkFailures(results, 'never')).toEqual([]);
});

test('against a baseline: the rate, its move and both counts (base → head)', () => {
  const base = run([repeated('flaky', '✓✓✓✓✓✓✓✓✓✓✓✓✓✓')]);
  const head = run([repeated('flaky', '✓✗✗✓✗')]);
  const compared = compareWithBaseline(
    head,
    { ...base, commit: null, definitionVersion: DEFINITION_VERSION },
    {
      source: 'file',
      commit: null,
      run_id: null,
      run_url: null,
      artifact_id: null,
      created_at: null,
      file: 'base.json',
    },
    0.1,
  );
  const c = compared.suites[0]!.cases[0]!;
  expect(c.baseline).toMatchObject({ change: 'regressed', pass_rate: 1, passed: 14, repeats: 14 });
  expect(passRateCell(c)).toContain('>0.40 ▼0.60 (14/14 → 2/5)</abbr> ✓✗✗✓✗');
  expect(renderReport(compared)).toContain('0.40 ▼0.60 (14/14 → 2/5)');
});
