import { renderReport, COMMENT_LIMIT } from '../../src/report/comment-body.js';
import { parseHistory } from '../../src/report/history.js';
import { type CaseResult, type CaseVerdict, countCases, type RunResults } from '../../src/core/results.js';

const usage = {
  judge_calls: 12,
  cached_calls: 3,
  prompt_tokens: 12345,
  completion_tokens: 2345,
  cost_usd: 0.0087,
};

function caseResult(i: number, verdict: CaseVerdict): CaseResult {
  const satisfied = verdict === 'pass';
  return {
    id: `case-${String(i).padStart(4, '0')}-with-a-fairly-long-descriptive-identifier`,
    line: 3 + i * 7,
    verdict,
    score: satisfied ? 1 : 0.4,
    gating_violations: satisfied ? [] : ['rubric-2: required item not satisfied'],
    target: 'default',
    answer: 'x'.repeat(200),
    duration_ms: 12,
    evaluators: [
      {
        name: 'rubric',
        type: 'llm_judge',
        weight: 1,
        mode: 'checklist',
        score: satisfied ? 1 : 0.4,
        verdict,
        gating_violations: satisfied ? [] : ['rubric-2: required item not satisfied'],
        checks: [
          {
            id: 'rubric-1',
            satisfied: true,
            weight: 1,
            required: true,
            reasoning: 'The answer covers the first point in detail.',
          },
          {
            id: 'rubric-2',
            satisfied,
            weight: 1,
            required: true,
            reasoning: satisfied
              ? 'ok'
              : 'The answer never mentions the expiry of the reset link, which the rubric requires.',
          },
        ],
      },
    ],
  };
}

function results(cases: CaseResult[], over: Partial<RunResults> = {}): RunResults {
  const counts = countCases(cases.map((c) => c.verdict));
  return {
    version: 1,
    verdict: counts.fail || counts.error ? 'fail' : counts.borderline ? 'borderline' : 'pass',
    score: 0.75,
    counts,
    suites: [{ path: 'evals/support.yaml', description: null, cases }],
    rubric: null,
    usage,
    partial: false,
    errors: [],
    warnings: [],
    history: [
      {
        iteration: 0,
        commit: 'abc1234567',
        verdict: 'fail',
        score: 0.75,
        counts: '1 pass · 0 borderline · 1 fail',
        feedback: null,
        rubric_hash: null,
        at: '2026-11-22T00:00:00Z',
      },
    ],
    judge: { model: 'gpt-4.1-mini', base_url: 'https://api.openai.com/v1' },
    started_at: '2026-11-22T00:00:00Z',
    duration_ms: 4200,
    ...over,
  };
}

test('the comment for a small run (snapshot): headline, failures first with why, passing folded, usage', () => {
  const text = renderReport(
    results([caseResult(1, 'pass'), caseResult(2, 'fail'), caseResult(3, 'borderline')]),
    { sticky: true, runUrl: 'https://github.com/o/r/actions/runs/1' },
  );
  expect(text).toMatchSnapshot();
  expect(text.indexOf('case-0002')).toBeLessThan(text.indexOf('case-0001'));
});

test('500 cases: the comment stays under 65,536 characters and says where the rest is', () => {
  const cases = Array.from({ length: 500 }, (_, i) => caseResult(i, i % 3 === 0 ? 'fail' : 'pass'));
  const r = results(cases);
  const text = renderReport(r, {
    sticky: true,
    fullReportHint: 'The full report is in the [job summary](https://x/runs/1).',
  });
  expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  expect(text).toMatch(/job summary/);
  expect(text.startsWith('<!-- rubric-eval -->\n')).toBe(true);
  // The history block survives any folding or cutting.
  expect(parseHistory(text)).toEqual(r.history);
  // The summary (1 MB limit) keeps every case.
  const summary = renderReport(r);
  expect(summary.length).toBeGreaterThan(text.length);
  for (const c of cases) expect(summary).toContain(c.id);
});

test('2,000 failing cases: folded to the 10 worst rows per suite, with a count of the rest', () => {
  const text = renderReport(results(Array.from({ length: 2000 }, (_, i) => caseResult(i, 'fail'))), {
    sticky: true,
  });
  expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  expect(text).toMatch(/_… and 19[59]0 more not passing; see the job summary\._/);
});

test('400 suites with failures: cut as a last resort, details closed, pointer and history kept', () => {
  const r = results([]);
  r.suites = Array.from({ length: 400 }, (_, s) => ({
    path: `evals/suite-${s}.yaml`,
    description: null,
    cases: [caseResult(s * 3, 'fail'), caseResult(s * 3 + 1, 'fail'), caseResult(s * 3 + 2, 'pass')],
  }));
  const text = renderReport(r, { sticky: true });
  expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  expect(text).toContain('This report was cut to fit');
  expect((text.match(/<details/g) ?? []).length).toBe((text.match(/<\/details>/g) ?? []).length);
  expect(parseHistory(text)).toEqual(r.history);
});

test('table cells cannot break the table or inject HTML', () => {
  const c = caseResult(1, 'fail');
  c.id = 'a|b<script>';
  c.gating_violations = ['x | y\nz'];
  const text = renderReport(results([c]));
  // An id is code: shown as written in a code span (GitHub renders nothing inside one); only the
  // pipe is escaped, because a table splits on it even inside code.
  expect(text).toContain('| `a\\|b<script>` |');
  expect(text).toContain('x \\| y z');
});

test('invalid input and a partial run are stated up front', () => {
  expect(
    renderReport(
      results([], {
        errors: ["evals/x.yaml:4:3 rubric 'a': overlap: [3, 6] overlaps [5, 7]"],
        verdict: 'fail',
      }),
    ),
  ).toContain('Nothing was judged: the input is invalid.');
  expect(renderReport(results([caseResult(1, 'pass')], { partial: true, verdict: 'fail' }))).toContain(
    'The run was cancelled',
  );
});

test('every failing or errored evaluator kind gives a reason in the table and the why list', () => {
  const evaluator = (over: Partial<CaseResult['evaluators'][number]>) => ({
    name: 'e',
    type: 'code_judge' as const,
    weight: 1,
    score: 0,
    verdict: 'fail' as const,
    gating_violations: [],
    ...over,
  });
  const kase = (
    id: string,
    verdict: CaseResult['verdict'],
    evaluators: CaseResult['evaluators'],
  ): CaseResult => ({
    id,
    line: 4,
    verdict,
    score: 0,
    gating_violations: [],
    target: 'default',
    answer: 'a',
    duration_ms: 1,
    evaluators,
  });
  const crash = evaluator({
    name: 'word_limit',
    verdict: 'error',
    error: "script 'node judges/missing.mjs' exit code 1 without a result: Error: Cannot find module",
  });
  const text = renderReport(
    results([
      kase('crashed', 'error', [crash]),
      kase('missed', 'fail', [evaluator({ name: 'word_limit', misses: ['52 words, limit 40'] })]),
      kase('silent', 'fail', [evaluator({ name: 'format', score: 0.3, reasoning: 'no JSON' })]),
      kase('nested', 'error', [
        evaluator({
          name: 'gate',
          type: 'composite',
          mode: 'aggregate',
          verdict: 'error',
          error: 'inner: word_limit: boom',
          children: [
            evaluator({
              name: 'inner',
              type: 'composite',
              mode: 'aggregate',
              verdict: 'error',
              error: 'word_limit: boom',
              children: [{ ...crash, error: 'boom' }],
            }),
          ],
        }),
      ]),
    ]),
  );
  const row = (id: string) => text.split('\n').find((l) => l.includes(`\`${id}\``) && l.startsWith('|'))!;
  expect(row('crashed')).toContain(
    "| word_limit: error: script 'node judges/missing.mjs' exit code 1 without a result: Error: Cannot find module |",
  );
  expect(row('missed')).toContain('| word_limit: 52 words, limit 40 |');
  expect(row('silent')).toContain('| format: score 0.30: no JSON |');
  expect(row('nested')).toContain('| gate › inner › word_limit: error: boom |');
  // The error is told once, where it happened, not again by each composite above it.
  expect(text.match(/boom/g)).toHaveLength(2);
});
