import { compareWithBaseline } from '../../src/baseline/compare.js';
import { fileOrigin } from '../../src/baseline/load.js';
import { parseBaselineResults } from '../../src/baseline/read-results.js';
import { checkFailures, failureMessage } from '../../src/config/fail-on.js';
import { type RunResults } from '../../src/core/results.js';
import { renderReport } from '../../src/report/comment-body.js';
import { resultsOf, type Row } from '../helpers/results.js';

const baseRows: Row[] = [
  ['a.yaml', 'same', 'pass', 1, 'h'],
  ['a.yaml', 'broken', 'pass', 0.9, 'h'],
  ['a.yaml', 'fixed', 'fail', 0.3, 'h'],
  ['a.yaml', 'regressed', 'pass', 1, 'h'],
  ['a.yaml', 'improved', 'borderline', 0.6, 'h'],
  ['a.yaml', 'still', 'fail', 0.2, 'h'],
  ['a.yaml', 'redefined', 'pass', 1, 'old'],
  ['b.yaml', 'gone', 'pass', 1, 'h'],
];
const headRows: Row[] = [
  ['a.yaml', 'same', 'pass', 1, 'h'],
  ['a.yaml', 'broken', 'fail', 0.4, 'h'],
  ['a.yaml', 'fixed', 'pass', 0.9, 'h'],
  ['a.yaml', 'regressed', 'borderline', 0.7, 'h'],
  ['a.yaml', 'improved', 'pass', 0.9, 'h'],
  ['a.yaml', 'still', 'fail', 0.25, 'h'],
  ['a.yaml', 'redefined', 'fail', 0, 'new'],
  ['b.yaml', 'new', 'pass', 1, 'h'],
];

function base(rows: Row[], over: Partial<RunResults> = {}) {
  const parsed = parseBaselineResults(JSON.stringify(resultsOf(rows, over)), 'base.json');
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.results;
}

test('every kind of change, the run-level counts and the removed cases', () => {
  const head = resultsOf(headRows);
  const r = compareWithBaseline(head, base(baseRows), fileOrigin('base.json'), 0.1);
  const changes = r.suites.flatMap((s) => s.cases.map((c) => [c.id, c.baseline?.change]));
  expect(changes).toEqual([
    ['same', 'same'],
    ['broken', 'broken'],
    ['fixed', 'fixed'],
    ['regressed', 'regressed'],
    ['improved', 'improved'],
    ['still', 'same'],
    ['redefined', 'redefined'],
    ['new', 'new'],
  ]);
  expect(r.baseline).toMatchObject({
    source: 'file',
    file: 'base.json',
    margin: 0.1,
    changes: { same: 2, improved: 1, regressed: 1, fixed: 1, broken: 1, new: 1, redefined: 1, removed: 1 },
    removed: ['b.yaml#gone'],
  });
  const broken = r.suites[0]!.cases[1]!;
  expect(broken.baseline).toEqual({ verdict: 'pass', score: 0.9, change: 'broken' });
  expect(r.suites[1]!.cases[0]!.baseline).toEqual({ verdict: null, score: null, change: 'new' });
  // Neither input is touched.
  expect(head.suites[0]!.cases[0]!.baseline).toBeUndefined();
  expect(head.baseline).toBeUndefined();
});

test('a cancelled run lists nothing as removed; a partial base compares what it has and the rest is new', () => {
  const partialHead = resultsOf(headRows.slice(0, 2), { partial: true });
  const r1 = compareWithBaseline(partialHead, base(baseRows), fileOrigin('b'), 0.1);
  expect(r1.baseline!.removed).toEqual([]);
  expect(r1.baseline!.changes.removed).toBe(0);

  const r2 = compareWithBaseline(
    resultsOf(headRows.slice(0, 2)),
    base(baseRows.slice(0, 1), { partial: true }),
    fileOrigin('b'),
    0.1,
  );
  expect(r2.suites[0]!.cases.map((c) => c.baseline!.change)).toEqual(['same', 'new']);
});

describe('fail-on: regression', () => {
  const compare = (headR: Row[], baseR: Row[], over: Partial<RunResults> = {}) =>
    compareWithBaseline(resultsOf(headR, over), base(baseR), fileOrigin('b'), 0.1);

  test('fails on broken, regressed, and new or redefined cases that fail', () => {
    const r = compare(headRows, baseRows);
    expect(checkFailures(r, 'regression')).toEqual(['1 broken', '1 regressed', '1 new or redefined failing']);
    expect(failureMessage(r, 'regression')).toBe(
      'rubric-eval: fail (score 0.50) against the baseline: 1 broken, 1 regressed, 1 new or redefined failing',
    );
  });

  test('passes when only failures that were already on the base remain', () => {
    const r = compare(
      [
        ['a.yaml', 'still', 'fail', 0.25, 'h'],
        ['a.yaml', 'fixed', 'pass', 1, 'h'],
        ['a.yaml', 'new', 'pass', 1, 'h'],
      ],
      [
        ['a.yaml', 'still', 'fail', 0.2, 'h'],
        ['a.yaml', 'fixed', 'fail', 0.1, 'h'],
      ],
    );
    expect(r.verdict).toBe('fail');
    expect(checkFailures(r, 'regression')).toEqual([]);
    // The other fail-on values keep their absolute verdict: the comparison never changes it.
    expect(checkFailures(r, 'fail')).toEqual(['1 failed']);
    expect(checkFailures(r, 'never')).toEqual([]);
  });

  test('any error fails, even one that errored on the base too; so do a failing rubric, invalid input, a partial run', () => {
    const rows: Row[] = [['a.yaml', 'x', 'error', 0, 'h']];
    expect(checkFailures(compare(rows, rows), 'regression')).toEqual(['1 errored']);
    const withRubric = compare([['a.yaml', 'x', 'pass', 1, 'h']], [['a.yaml', 'x', 'pass', 1, 'h']], {
      rubric: { path: 'RUBRIC.md', verdict: 'fail' } as RunResults['rubric'],
    });
    expect(checkFailures(withRubric, 'regression')).toEqual(['rubric RUBRIC.md failed']);
    expect(checkFailures(compare(rows, rows, { partial: true }), 'regression')).toEqual([
      'the run was cancelled (partial results)',
    ]);
    expect(checkFailures(compare([], [], { errors: ['x.yaml:1:1 bounds: bad'] }), 'regression')).toEqual([
      'invalid input (1 problem)',
    ]);
  });

  test('without a baseline it is fail', () => {
    const r = resultsOf([['a.yaml', 'still', 'fail', 0.2]]);
    expect(checkFailures(r, 'regression')).toEqual(['1 failed']);
    expect(checkFailures(resultsOf([['a.yaml', 'b', 'borderline', 0.7]]), 'regression')).toEqual([]);
  });
});

describe('reading a results file as a baseline', () => {
  test('unreadable JSON, another major version and a wrong shape each give a reason naming the file', () => {
    expect(parseBaselineResults('{"version": 1, ', 'main.json')).toEqual({
      error: expect.stringMatching(/^main\.json is not readable JSON \(/),
    });
    expect(parseBaselineResults('{"version": 2, "suites": []}', 'main.json')).toEqual({
      error: 'main.json has results version 2; this rubric-eval compares with version 1 only',
    });
    expect(parseBaselineResults('{"suites": []}', 'main.json')).toEqual({
      error: 'main.json has results version null; this rubric-eval compares with version 1 only',
    });
    expect(parseBaselineResults('[1]', 'main.json')).toEqual({
      error: 'main.json is not a results file (expected a JSON object)',
    });
    const bad = JSON.stringify({
      version: 1,
      suites: [{ path: 'a', cases: [{ id: 'x', verdict: 'great', score: 1 }] }],
    });
    expect(parseBaselineResults(bad, 'main.json')).toEqual({
      error: expect.stringMatching(
        /^main\.json is not a valid results file: suites\[0\]\.cases\[0\]\.verdict: /,
      ),
    });
  });

  test('a minor version is read; the commit comes from the last history entry', () => {
    const text = JSON.stringify({
      ...resultsOf([['a.yaml', 'x', 'pass', 1, 'h']]),
      version: '1.3',
      history: [{ commit: 'aaa' }, { commit: 'bbbbbbbbbb' }],
    });
    const r = parseBaselineResults(text, 'main.json');
    expect(r).toEqual({
      results: {
        partial: false,
        commit: 'bbbbbbbbbb',
        definitionVersion: 2,
        suites: [
          {
            path: 'a.yaml',
            cases: [{ id: 'x', verdict: 'pass', score: 1, definition_hash: 'h', answer: null }],
          },
        ],
      },
    });
  });
});

test('a baseline whose hashes are of an older version: every hashed case is redefined, said once for the run', () => {
  const rows: Row[] = [
    ['a.yaml', 'x', 'fail', 0, 'h1'],
    ['a.yaml', 'y', 'pass', 1, 'h2'],
    ['a.yaml', 'z', 'pass', 1],
  ];
  const head = resultsOf([
    ['a.yaml', 'x', 'pass', 1, 'h1'],
    ['a.yaml', 'y', 'fail', 0, 'h2'],
    ['a.yaml', 'z', 'fail', 0, 'h3'],
  ]);
  const older = { ...resultsOf(rows), definition_version: undefined };
  const parsed = parseBaselineResults(JSON.stringify(older), 'main.json');
  if (!('results' in parsed)) throw new Error(parsed.error);
  expect(parsed.results.definitionVersion).toBeNull();
  const r = compareWithBaseline(head, parsed.results, fileOrigin('b'), 0.1);
  // Equal hashes of another version prove nothing; a case without a hash on one side is compared.
  expect(r.suites[0]!.cases.map((c) => c.baseline!.change)).toEqual(['redefined', 'redefined', 'broken']);
  expect(r.baseline!.notice).toBe(
    "the baseline's definition hashes are of an older rubric-eval (this one's, version 2, also cover grader scripts' contents and target definitions): its cases compare as redefined, not as fixed or broken",
  );
  const line = renderReport(r)
    .split('\n')
    .filter((l) => l.includes('definition hashes'));
  expect(line).toHaveLength(1);
  // The same version: no notice.
  const same = compareWithBaseline(head, base(rows), fileOrigin('b'), 0.1);
  expect(same.baseline!.notice).toBeUndefined();
});

test("the base's answer rides along where it differs from the head's, cut; an equal one is left out", () => {
  const answered = (rows: Row[], answers: (string | null)[]) => {
    const r = resultsOf(rows);
    r.suites[0]!.cases.forEach((c, i) => (c.answer = answers[i] ?? null));
    return r;
  };
  const rows: Row[] = [
    ['a.yaml', 'same', 'pass', 1, 'h'],
    ['a.yaml', 'changed', 'pass', 1, 'h'],
    ['a.yaml', 'long', 'pass', 1, 'h'],
  ];
  const parsed = parseBaselineResults(
    JSON.stringify(answered(rows, ['Paris', 'Rome', 'x'.repeat(5000)])),
    'base.json',
  );
  if ('error' in parsed) throw new Error(parsed.error);
  const head = answered(rows, ['Paris', 'Milan', 'y']);
  const r = compareWithBaseline(head, parsed.results, fileOrigin('base.json'), 0.1);
  const [same, changed, long] = r.suites[0]!.cases;
  expect(same!.baseline).not.toHaveProperty('answer');
  expect(changed!.baseline!.answer).toBe('Rome');
  expect(long!.baseline!.answer).toBe(`${'x'.repeat(4000)}… [5000 characters, cut]`);
});
