import { type CalibrationResults } from '../../src/core/calibration-results.js';
import { type RunResults } from '../../src/core/results.js';
import { calibrationSection } from '../../src/report/calibration.js';
import { inert } from '../../src/report/inert.js';
import { renderTerminal } from '../../src/report/terminal.js';

const HOSTILE = '@org/team <img src=x> [click](https://evil.example) <!--';

const agreement = {
  n: 12,
  agreement: 0.5,
  kappa: null,
  kappa_low: null,
  kappa_high: null,
  tpr: null,
  tnr: null,
  judge_yes_human_no: 3,
  judge_no_human_yes: 3,
  kappa_note: HOSTILE,
};

test("a merged shard's calibration text reaches the comment only through the neutraliser", () => {
  const calibration: CalibrationResults = {
    file: 'labels.jsonl',
    source: 'working tree',
    labels: 12,
    floor: 0.6,
    overall: agreement,
    rows: [],
    below_floor: [
      {
        suite: 'evals/x.yaml',
        id: 'c',
        check: 'names-paris',
        evaluator: ['rubric'],
        n: 12,
        kappa: 0.1,
        reason: HOSTILE,
      },
    ],
    effect: 'advisory',
    errors: [],
    after_merge: null,
    usage: { judge_calls: 0, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
  };
  const text = calibrationSection({ calibration } as unknown as RunResults);
  expect(text).not.toContain(HOSTILE);
  expect(text).not.toContain('@org/team');
  expect(text).not.toContain('<img');
  expect(text).not.toContain('<!--');
  // Both fields are there, made inert (as every other judge or file text is).
  expect(text.split(inert(HOSTILE)).length - 1).toBe(2);
});

function measured(over: Partial<CalibrationResults> = {}): CalibrationResults {
  return {
    file: 'evals/labels.jsonl',
    source: 'working tree',
    labels: 48,
    floor: 0.6,
    overall: { ...agreement, n: 48, kappa: 0.8214, kappa_low: 0.7, kappa_high: 0.93, kappa_note: undefined },
    rows: [],
    below_floor: [
      {
        suite: 'evals/qa.yaml',
        id: 'capital-of-france',
        check: 'names-paris',
        evaluator: ['rubric'],
        n: 12,
        kappa: 0,
        reason: 'κ 0.00 (95% -0.50..0.50) over 12 labels is below min-judge-agreement 0.6',
      },
    ],
    effect: 'advisory',
    errors: [],
    after_merge: null,
    usage: { judge_calls: 12, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
    ...over,
  };
}

const runWith = (calibration: CalibrationResults): RunResults => ({
  version: 1,
  verdict: 'pass',
  score: 1,
  counts: { pass: 1, borderline: 0, fail: 0, error: 0 },
  suites: [],
  rubric: null,
  usage: { judge_calls: 14, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
  partial: false,
  errors: [],
  warnings: [],
  history: [],
  judge: null,
  started_at: '2026-11-27T00:00:00Z',
  duration_ms: 1000,
  calibration,
});

test("the terminal shows the comment's calibration line, and per advisory check why", () => {
  const results = runWith(measured());
  const lines = renderTerminal(results).split('\n');
  const at = lines.indexOf('judge agreement: κ 0.82 over 48 labels; 1 check advisory');
  expect(at).toBeGreaterThanOrEqual(0);
  expect(lines.slice(at, at + 3)).toEqual([
    'judge agreement: κ 0.82 over 48 labels; 1 check advisory',
    '  evals/qa.yaml › capital-of-france › names-paris is advisory (shown, not gating): κ 0.00 (95% -0.50..0.50) over 12 labels is below min-judge-agreement 0.6',
    'Verdict: PASS  score 1.00  (1 pass · 0 borderline · 0 fail)',
  ]);
  // The same words as the comment's, which quotes them for GitHub.
  const comment = calibrationSection(results);
  expect(comment).toContain('**judge agreement: κ 0.82 over 48 labels; 1 check advisory**');
  expect(comment).toContain(
    '- `evals/qa.yaml › capital-of-france › names-paris` is advisory (shown, not gating): κ 0.00 (95% -0.50..0.50) over 12 labels is below min-judge-agreement 0.6',
  );
});

test('the terminal: fail-on: calibration, κ undefined, more than 20 checks, no calibration', () => {
  const many = Array.from({ length: 22 }, (_, i) => ({
    suite: 's.yaml',
    id: `c${i}`,
    check: 'x',
    evaluator: ['rubric'],
    n: 10,
    kappa: 0.1,
    reason: 'low',
  }));
  const text = renderTerminal(
    runWith(
      measured({
        effect: 'fails',
        below_floor: many,
        overall: { ...agreement, kappa_note: '12 labels of one class on both sides' },
      }),
    ),
  );
  expect(text).toContain(
    'judge agreement: κ — (12 labels of one class on both sides) over 48 labels; 22 checks below min-judge-agreement 0.6 (fail-on: calibration)\n',
  );
  expect(text).toContain('  s.yaml › c0 › x fails the check: low\n');
  expect(text).toContain(
    '  s.yaml › c19 › x fails the check: low\n  … and 2 more (the results file has them all)\n',
  );
  expect(text).not.toContain('c20');
  const { calibration: _none, ...without } = runWith(measured());
  expect(renderTerminal(without)).not.toContain('judge agreement');
});
