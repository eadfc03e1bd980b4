import { renderTerminal } from '../../src/report/terminal.js';
import { type CaseResult, countCases, emptyUsage, type RunResults } from '../../src/core/results.js';

const plainCase = (
  id: string,
  verdict: CaseResult['verdict'],
  score = verdict === 'pass' ? 1 : 0.4,
): CaseResult => ({
  id,
  verdict,
  score,
  gating_violations: [],
  target: 'default',
  answer: null,
  duration_ms: 5,
  evaluators: [],
  ...(verdict === 'error' ? { error: 'target crashed' } : {}),
  ...(verdict === 'skipped' ? { skipped: 'budget' as const } : {}),
});

function results(cases: CaseResult[]): RunResults {
  return {
    version: 1,
    verdict: 'fail',
    score: 0.9,
    counts: countCases(cases.map((c) => c.verdict)),
    suites: [{ path: 'evals/a.yaml', description: null, cases }],
    rubric: null,
    usage: emptyUsage(),
    partial: false,
    errors: [],
    warnings: [],
    history: [],
    judge: null,
    started_at: '2026-11-26T00:00:00Z',
    duration_ms: 1000,
    budget: { usd: 1, spent_usd: 1.0004, skipped: 1 },
  };
}

const cases = [
  ...Array.from({ length: 150 }, (_, i) => plainCase(`ok-${i}`, 'pass')),
  plainCase('wobbly', 'borderline', 0.7),
  ...Array.from({ length: 147 }, (_, i) => plainCase(`fine-${i}`, 'pass')),
  plainCase('broken', 'fail', 0.2),
  plainCase('crashed', 'error', 0),
  plainCase('late', 'skipped', 0),
];

test('failures first, worst first; passes folded into one line per suite; skipped counted', () => {
  const text = renderTerminal(results(cases));
  const lines = text.split('\n');
  const suite = lines.indexOf('evals/a.yaml');
  expect(lines.slice(suite, suite + 7)).toEqual([
    'evals/a.yaml',
    '  error      0.00  crashed  ',
    '      error: target crashed',
    '  fail       0.20  broken   ',
    '  borderline 0.70  wobbly   ',
    '  + 297 passing',
    '  1 skipped',
  ]);
  expect(text).not.toContain('ok-0');
  expect(text).toContain(
    '1 case skipped, not judged: the spend cap budget-usd $1 was reached (spent ≈ $1.0004)',
  );
  expect(text).toContain('spent ≈ $1.0004 of budget-usd $1 · 1 skipped');
  expect(text).toContain('(297 pass · 1 borderline · 1 fail · 1 error · 1 skipped)');
});

test('--verbose lists every case in plan order', () => {
  const text = renderTerminal(results(cases), undefined, { verbose: true });
  expect(text).not.toContain('passing');
  expect(text.indexOf(' ok-0 ')).toBeLessThan(text.indexOf(' wobbly '));
  expect(text.indexOf(' wobbly ')).toBeLessThan(text.indexOf(' fine-0 '));
  expect(text.match(/^ {2}pass /gm)).toHaveLength(297);
});
