import { compareWithBaseline } from '../../src/baseline/compare.js';
import { parseBaselineResults } from '../../src/baseline/read-results.js';
import { withRegressionCheck } from '../../src/config/fail-on.js';
import { baselineLine, noBaselineLine, scoreWithDelta } from '../../src/report/baseline.js';
import { COMMENT_LIMIT, renderReport } from '../../src/report/comment-body.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { type RunResults } from '../../src/core/results.js';
import { liveParts } from '../helpers/live-markdown.js';
import { resultsOf, type Row } from '../helpers/results.js';

const ORIGIN = {
  source: 'artifact' as const,
  commit: 'bbbbbbbcafe0123456789',
  run_id: 77,
  run_url: 'https://github.com/octo/repo/actions/runs/77',
  artifact_id: 5,
  created_at: '2026-11-22T10:00:00Z',
  file: 'rubric-eval-results/rubric-eval-results.json',
};

function compared(head: Row[], base: Row[], over: Partial<RunResults> = {}): RunResults {
  const b = parseBaselineResults(JSON.stringify(resultsOf(base)), 'base');
  if ('error' in b) throw new Error(b.error);
  return compareWithBaseline(resultsOf(head, over), b.results, ORIGIN, 0.1);
}

const BASE: Row[] = [
  ['evals/qa.yaml', 'kept', 'pass', 1, 'h'],
  ['evals/qa.yaml', 'broke-it', 'pass', 0.9, 'h'],
  ['evals/qa.yaml', 'slipped', 'pass', 0.9, 'h'],
  ['evals/qa.yaml', 'mended', 'fail', 0.3, 'h'],
  ['evals/qa.yaml', 'old-trouble', 'fail', 0.2, 'h'],
  ['evals/qa.yaml', 'old-crash', 'fail', 0.1, 'h'],
  ['evals/qa.yaml', 'dropped', 'pass', 1, 'h'],
];
const HEAD: Row[] = [
  ['evals/qa.yaml', 'kept', 'pass', 1, 'h'],
  ['evals/qa.yaml', 'broke-it', 'fail', 0.6, 'h'],
  ['evals/qa.yaml', 'slipped', 'borderline', 0.6, 'h'],
  ['evals/qa.yaml', 'mended', 'pass', 0.95, 'h'],
  ['evals/qa.yaml', 'old-trouble', 'fail', 0.2, 'h'],
  ['evals/qa.yaml', 'old-crash', 'fail', 0.15, 'h'],
  ['evals/qa.yaml', 'brand-new', 'fail', 0.4, 'h'],
];

test('the comment with a baseline (snapshot): the vs base line, deltas, broken first, still failing folded', () => {
  const r = compared(HEAD, BASE);
  // The broken case with the check it now misses: its reason is shown open, first.
  const broken = r.suites[0]!.cases.find((c) => c.id === 'broke-it')!;
  broken.gating_violations = ['cites-policy: required item not satisfied'];
  broken.evaluators = [
    {
      name: 'rubric',
      type: 'llm_judge',
      weight: 1,
      mode: 'checklist',
      score: 0.6,
      verdict: 'fail',
      gating_violations: broken.gating_violations,
      checks: [
        { id: 'cites-policy', satisfied: false, weight: 1, required: true, reasoning: 'No policy is cited.' },
      ],
    },
  ];
  const text = renderReport(r, { sticky: true });
  expect(text).toMatchSnapshot();
  const lines = text.split('\n');
  expect(lines[0]).toBe('<!-- rubric-eval -->');
  expect(lines.find((l) => l.startsWith('vs base'))).toBe(
    'vs base [bbbbbbb](https://github.com/octo/repo/actions/runs/77): 1 broken · 1 regressed · 1 fixed · 2 still failing · 1 new · 1 removed',
  );
  expect(text).toContain('| ❌ | `broke-it` | 0.60 ▼0.30 | broken |');
  // Broken, then regressed, then new: what the PR did comes first.
  const order = ['`broke-it`', '`slipped`', '`brand-new`'].map((id) => text.indexOf(`| ${id}`));
  expect(order).toEqual([...order].sort((a, b) => a - b));
  expect(text).toMatch(
    /<details><summary>2 still failing \(failing on the base too\)<\/summary>[\s\S]*`old-trouble`/,
  );
  expect(text).toContain('- `evals/qa.yaml#dropped`');
  // The job summary says the same.
  expect(renderReport(r)).toContain(lines.find((l) => l.startsWith('vs base')));
});

test('deltas: down, up, unchanged, and none for a new case', () => {
  const r = compared(HEAD, BASE);
  const byId = Object.fromEntries(r.suites[0]!.cases.map((c) => [c.id, scoreWithDelta(c)]));
  expect(byId).toEqual({
    kept: '1.00',
    'broke-it': '0.60 ▼0.30',
    slipped: '0.60 ▼0.30',
    mended: '0.95 ▲0.65',
    'old-trouble': '0.20',
    'old-crash': '0.15 ▲0.05',
    'brand-new': '0.40',
  });
});

test('no baseline: the note says why in one line; none at all without one asked for', () => {
  const plain = resultsOf(HEAD);
  expect(baselineLine(plain)).toBeNull();
  const noted = {
    ...plain,
    baseline: null,
    baseline_note: 'No baseline (no artifact): fail-on regression judges this run as fail.',
  };
  expect(baselineLine(noted)).toBeNull();
  expect(noBaselineLine(noted)).toBe(
    '_No baseline (no artifact): fail-on regression judges this run as fail._',
  );
  expect(renderReport(noted)).toContain(noBaselineLine(noted));
  // Without a baseline the table keeps its usual columns.
  expect(renderReport(plain)).not.toContain('| change |');
});

test('a file baseline names the file; the sha is only shown when it is one', () => {
  const r = compared(HEAD, BASE);
  const fromFile = {
    ...r,
    baseline: { ...r.baseline!, source: 'file' as const, commit: null, run_url: null, file: 'main.json' },
  };
  expect(baselineLine(fromFile)).toMatch(/^vs base `main\.json`: 1 broken/);
  const hostile = { ...r, baseline: { ...r.baseline!, commit: '<img src=x> @here', run_url: null } };
  expect(baselineLine(hostile)).toMatch(/^vs base branch: /);
});

test('under fail-on regression the line says whether the check passes, whatever the verdict', () => {
  const failing = withRegressionCheck(compared(HEAD, BASE), 'regression');
  expect(failing.verdict).toBe('fail');
  expect(baselineLine(failing)).toMatch(
    /: 1 broken · 1 regressed · 1 fixed · 2 still failing · 1 new · 1 removed — `fail-on: regression` fails the check: 1 broken, 1 regressed, 1 new or redefined failing$/,
  );
  const still: Row[] = [['evals/qa.yaml', 'old-trouble', 'fail', 0.2, 'h']];
  const inherited = withRegressionCheck(compared(still, still), 'regression');
  expect(inherited.verdict).toBe('fail');
  expect(baselineLine(inherited)).toMatch(
    /: 1 still failing — `fail-on: regression` passes the check: nothing got worse$/,
  );
  // Other fail-on values: the comparison is shown, the line claims nothing about the check.
  expect(withRegressionCheck(compared(still, still), 'fail').baseline!.check).toBeUndefined();
});

test('2,000 cases with a baseline: the comment stays under 65,536 characters, broken cases still first', () => {
  const base: Row[] = [];
  const head: Row[] = [];
  for (let i = 0; i < 2000; i++) {
    const id = `case-${String(i).padStart(4, '0')}-with-a-fairly-long-descriptive-identifier`;
    const suite = `evals/suite-${i % 4}.yaml`;
    const kind = i % 5;
    base.push([
      suite,
      id,
      kind === 1 || kind === 2 ? 'fail' : 'pass',
      kind === 1 || kind === 2 ? 0.3 : 0.95,
      'h',
    ]);
    head.push([
      suite,
      id,
      kind === 0 || kind === 1 ? 'fail' : 'pass',
      kind === 0 || kind === 1 ? 0.3 : 0.95,
      'h',
    ]);
  }
  const r = compared(head, base);
  expect(r.baseline!.changes).toMatchObject({ broken: 400, fixed: 400, same: 1200 });
  const text = renderReport(r, { sticky: true, fullReportHint: 'The full report is in the job summary.' });
  expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  expect(text).toContain(
    'vs base [bbbbbbb](https://github.com/octo/repo/actions/runs/77): 400 broken · 400 fixed · 400 still failing',
  );
  expect(text).toMatch(/\| ❌ \| `case-0000-[^`]*` \| 0\.30 ▼0\.65 \| broken \|/);
  expect(text).toContain('_100 still failing (failing on the base too): listed in the job summary._');
});

test('the terminal table shows the change words and the vs base line', () => {
  const text = renderTerminal(compared(HEAD, BASE));
  expect(text).toContain(
    'vs base bbbbbbb: 1 broken · 1 regressed · 1 fixed · 2 still failing · 1 new · 1 removed',
  );
  expect(text).toMatch(/fail\s+0\.60 ▼0\.30\s+broke-it\s+broken/);
  expect(text).toContain('removed  evals/qa.yaml#dropped');
});

test("a first run's no-baseline notice sits below the counts, its `baseline: off` a code span, no backslash", () => {
  const first = {
    ...resultsOf(HEAD),
    baseline: null,
    baseline_note:
      'No baseline (no rubric-eval-results artifact from main among 0 listed; upload the results file with actions/upload-artifact on push to the base branch, or set `baseline: off`).',
  };
  const note =
    '_No baseline (no rubric-eval-results artifact from main among 0 listed; upload the results file with actions/upload-artifact on push to the base branch, or set `baseline: off`)._';
  expect(noBaselineLine(first)).toBe(note);
  const body = renderReport(first);
  expect(body).not.toContain('\\`');
  const counts = body.indexOf('**');
  expect(body.indexOf(note)).toBeGreaterThan(body.indexOf(' pass · ', counts));
});

test('a no-baseline note quoting a file stays inert: only whole code spans become code', () => {
  const hostile = {
    ...resultsOf(HEAD),
    baseline: null,
    baseline_note:
      'No baseline (bad file: ping @octocat, see [here](https://x.test) and `x` then a lone ` tick).',
  };
  const line = noBaselineLine(hostile)!;
  expect(line).toContain(' and `x` then a lone \\` tick');
  expect(line).not.toContain('@octocat');
  expect(line).toContain('\\[here\\]');
  expect(liveParts(renderReport(hostile))).toEqual([]);
});
