import { stripVTControlCharacters } from 'node:util';
import { type CalibrationResults } from '../../src/core/calibration-results.js';
import { type CaseResult, countCases, emptyUsage, type RunResults } from '../../src/core/results.js';
import { belowFloorLines, PLAIN } from '../../src/report/calibration.js';
import { renderTerminal, styleFor } from '../../src/report/terminal.js';
import { plainLine } from '../../src/report/terminal-text.js';

// Hostile review r4, H6: a shard results file is input (`rubric-eval merge` prints it); a line it
// makes start with `::` is a workflow command when the merge runs in a workflow step.
const FORGED =
  'x\n::error title=rubric-eval::all checks passed\n\u001b[2J\u001b]8;;https://evil\u0007link\u0007';

/** No printed line is a workflow command, an escape sequence or a bell. */
function expectInert(text: string): void {
  for (const line of text.split('\n')) {
    expect(line.trimStart().startsWith('::')).toBe(false);
    expect(line.trimStart().startsWith('##[')).toBe(false);
  }
  expect(text).not.toContain('\u0007');
  expect(text).not.toContain('\u001b]');
  expect(text).not.toContain('\u001b[2J');
}

test('H6: the terminal calibration lines are one plain line each', () => {
  const c = {
    effect: 'advisory',
    below_floor: [
      {
        suite: 'evals/x.yaml',
        id: 'c',
        check: FORGED,
        evaluator: ['rubric'],
        n: 12,
        kappa: 0.1,
        reason: FORGED,
      },
    ],
  } as unknown as CalibrationResults;
  const lines = belowFloorLines(c, PLAIN);
  expect(lines).toHaveLength(1);
  expectInert(lines.join('\n'));
  expect(lines[0]).toContain(
    'evals/x.yaml › c › x ::error title=rubric-eval::all checks passed link⟨U+0007⟩',
  );
});

test('plainLine: escape sequences dropped, other controls shown, line breaks made spaces, bounded', () => {
  expect(plainLine('a\r\nb\tc\u0000d\u202ee', 100)).toBe('a b c⟨U+0000⟩d⟨U+202E⟩e');
  expect(plainLine('\u001b[31mred\u001b[0m', 100)).toBe('red');
  expect(plainLine('y'.repeat(300), 200)).toBe(`${'y'.repeat(199)}…`);
});

test('H6: everything renderTerminal prints from the results is inert and bounded, colours kept', () => {
  const bad: CaseResult = {
    id: `::error::${FORGED}`,
    verdict: 'fail',
    score: 0.2,
    gating_violations: [FORGED],
    target: 'default',
    answer: null,
    duration_ms: 1,
    evaluators: [],
    error: FORGED,
  };
  const results: RunResults = {
    version: 1,
    verdict: 'fail',
    score: 0.2,
    counts: countCases(['fail']),
    suites: [{ path: `##[error]${FORGED}`, description: null, cases: [bad] }],
    rubric: null,
    usage: emptyUsage(),
    partial: false,
    errors: [`::warning::${FORGED}`, ':', `${'e'.repeat(5000)}`],
    warnings: [],
    history: [],
    judge: null,
    started_at: '2026-11-26T00:00:00Z',
    duration_ms: 1000,
  };
  for (const style of [styleFor({ isTTY: false }, {}), styleFor({ isTTY: false }, { FORCE_COLOR: '1' })]) {
    const text = renderTerminal(results, style);
    // Only our own colours are escape sequences: the input's are gone before they are stripped.
    expect(text).not.toContain('\u001b[2J');
    expect(text).not.toContain('\u001b]');
    expectInert(stripVTControlCharacters(text));
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThan(1200);
    expect(text).toContain('Invalid input');
  }
  // Our own colours still reach a terminal that wants them.
  expect(renderTerminal(results, styleFor({ isTTY: false }, { FORCE_COLOR: '1' }))).toContain('\u001b[31m');
});
