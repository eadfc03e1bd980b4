import { type CaseResult, countCases, emptyUsage, type RunResults } from '../../src/core/results.js';
import { renderTerminal } from '../../src/report/terminal.js';

// The runner (actions/runner OutputManager + ActionCommand.TryParse) obeys the v1 form
// `##[command]data` ANYWHERE in a line (IndexOf("##["), not StartsWith), on stdout and stderr.
const commandInLine = (line: string) =>
  /^[\s\u0085]*::/.test(line) ||
  /##\[(error|warning|notice|debug|add-mask|group|endgroup|add-matcher)/.test(line);

function results(id: string): RunResults {
  const bad: CaseResult = {
    id,
    verdict: 'fail',
    score: 0.2,
    gating_violations: [],
    target: 'default',
    answer: null,
    duration_ms: 1,
    evaluators: [],
  };
  return {
    version: 1,
    verdict: 'fail',
    score: 0.2,
    counts: countCases(['fail']),
    suites: [{ path: 'evals/x.yaml', description: null, cases: [bad] }],
    rubric: null,
    usage: emptyUsage(),
    partial: false,
    errors: [],
    warnings: [],
    history: [],
    judge: null,
    started_at: '2026-11-26T00:00:00Z',
    duration_ms: 1000,
  } as RunResults;
}

test('a case id with `##[error]` mid-line never reaches the terminal output as a runner command', () => {
  const out = renderTerminal(results('capital ##[error]rubric-eval: all checks passed'));
  const lines = out.split('\n').filter(commandInLine);
  expect(lines).toEqual([]);
});
