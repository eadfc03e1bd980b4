import { ANNOTATION_LIMIT, caseAnnotations, stepAnnotations } from '../../src/report/annotations.js';
import { historyCounts } from '../../src/report/history.js';
import { type CaseResult, type RunResults } from '../../src/core/results.js';

const kase = (id: string, verdict: CaseResult['verdict'], score: number, line: number): CaseResult => ({
  id,
  line,
  verdict,
  score,
  gating_violations: verdict === 'fail' ? [`${id}-rubric: required item not satisfied`] : [],
  target: 'default',
  answer: 'a',
  duration_ms: 1,
  evaluators: [],
  ...(verdict === 'error' ? { error: `crash in ${id}` } : {}),
});

const run = (cases: CaseResult[]): RunResults =>
  ({
    suites: [{ path: 'evals/a.yaml', description: null, cases }],
  }) as unknown as RunResults;

test('every failed or errored case is annotated at its line, errors first, then the lowest scores', () => {
  const a = caseAnnotations(
    run([
      kase('ok', 'pass', 1, 3),
      kase('meh', 'fail', 0.5, 10),
      kase('bad', 'fail', 0.1, 20),
      kase('boom', 'error', 0, 30),
      kase('close', 'borderline', 0.7, 40),
    ]),
  );
  expect(a).toEqual([
    {
      file: 'evals/a.yaml',
      line: 30,
      title: 'rubric-eval: case errored',
      message: "case 'boom' errored: error: crash in boom",
    },
    {
      file: 'evals/a.yaml',
      line: 20,
      title: 'rubric-eval: case failed',
      message: "case 'bad' failed (score 0.10): bad-rubric: required item not satisfied",
    },
    {
      file: 'evals/a.yaml',
      line: 10,
      title: 'rubric-eval: case failed',
      message: "case 'meh' failed (score 0.50): meh-rubric: required item not satisfied",
    },
  ]);
});

test("within GitHub's per-step limit: the worst first, then a count of the rest", () => {
  const cases = Array.from({ length: 25 }, (_, i) => kase(`c${i}`, 'fail', i / 100, i + 1));
  const a = caseAnnotations(run(cases));
  expect(a).toHaveLength(ANNOTATION_LIMIT);
  expect(a.slice(0, 9).map((x) => x.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(a[9]).toEqual({
    title: 'rubric-eval: more cases',
    message:
      '16 more failed or errored cases not annotated (GitHub shows 10 per step); see the job summary or the results file',
  });
  expect(caseAnnotations(run(cases), 3).map((x) => x.line)).toEqual([1, 2, undefined]);
  expect(caseAnnotations(run(cases), 0)).toEqual([]);
});

test('the history shows case counts for suite runs, rubric counts for rubric runs, both for both', () => {
  const cases = { pass: 3, borderline: 1, fail: 1, error: 1 };
  const rubric = {
    gates_passed: 1,
    gates_total: 2,
    must_passed: 2,
    must_total: 3,
    nice_passed: 0,
    nice_total: 0,
  };
  expect(historyCounts(cases, null)).toBe('3 pass · 1 borderline · 1 fail · 1 error');
  expect(historyCounts({ pass: 0, borderline: 0, fail: 0, error: 0 }, rubric)).toBe('gates: 1/2 · must: 2/3');
  expect(historyCounts(cases, rubric)).toBe(
    '3 pass · 1 borderline · 1 fail · 1 error · rubric gates: 1/2 · must: 2/3',
  );
});

describe('stepAnnotations', () => {
  const diagnostic = (severity: 'error' | 'warning', file: string, line: number, rule = 'type') => ({
    severity,
    file,
    line,
    column: 4,
    rule,
    message: `${rule} problem`,
  });
  const where = { workspace: '/repo', workingDirectory: '/repo/sub', shard: null };
  const redact = (text: string) => text.replace(/boom/g, '***');

  test('problems at their position (relative to the repository), then the cases, redacted', () => {
    const out = stepAnnotations(
      {
        results: run([kase('boom', 'error', 0, 30)]),
        diagnostics: [
          diagnostic('warning', 'evals/a.yaml', 2),
          { ...diagnostic('error', 'evals/b.yaml', 5), subject: "case 'x'" },
          diagnostic('error', 'inputs', 1),
          diagnostic('error', 'evals/whole.yaml', 0),
        ],
        redact,
      },
      where,
    );
    expect(out).toEqual([
      {
        level: 'warning',
        message: 'type problem',
        properties: { file: 'sub/evals/a.yaml', startLine: 2, startColumn: 4, title: 'rubric-eval: type' },
      },
      {
        level: 'error',
        message: "case 'x': type problem",
        properties: { file: 'sub/evals/b.yaml', startLine: 5, startColumn: 4, title: 'rubric-eval: type' },
      },
      {
        level: 'error',
        message: "case '***' errored: error: crash in ***",
        properties: { file: 'sub/evals/a.yaml', startLine: 30, title: 'rubric-eval: case errored' },
      },
    ]);
  });

  test('the cases get the error annotations the problems left, the last one saying how many more', () => {
    const problems = Array.from({ length: 7 }, (_, k) => diagnostic('error', 'evals/b.yaml', k + 1));
    const cases = Array.from({ length: 5 }, (_, k) => kase(`c${k}`, 'fail', 0.1 * k, k + 1));
    const out = stepAnnotations({ results: run(cases), diagnostics: problems, redact }, where);
    expect(out.filter((a) => a.level === 'error')).toHaveLength(ANNOTATION_LIMIT);
    expect(out.at(-1)).toEqual({
      level: 'error',
      message: expect.stringMatching(/^3 more failed or errored cases not annotated/),
      properties: { title: 'rubric-eval: more cases' },
    });
  });

  test('a shard annotates no case, and only shard 1 the problems every shard finds', () => {
    const input = {
      results: run([kase('bad', 'fail', 0.1, 20)]),
      diagnostics: [diagnostic('warning', 'evals/a.yaml', 2)],
      redact,
    };
    expect(stepAnnotations(input, { ...where, shard: { index: 1 } }).map((a) => a.message)).toEqual([
      'type problem',
    ]);
    expect(stepAnnotations(input, { ...where, shard: { index: 2 } })).toEqual([]);
  });
});
