import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderJunit, writeJunitFile, xmlAttr, xmlText } from '../../src/report/junit.js';
import { type CaseResult, countCases, emptyUsage, type RunResults } from '../../src/core/results.js';
import { Redactor } from '../../src/exec/redact.js';
import { parseXml, validateJunit } from '../helpers/junit-xml.js';

const SECRET = 'sk-live-0123456789abcdef';

function judged(
  id: string,
  verdict: CaseResult['verdict'],
  extra: Partial<CaseResult> = {},
  reason = 'The answer never says when the link expires.',
): CaseResult {
  const ok = verdict === 'pass';
  return {
    id,
    verdict,
    score: ok ? 1 : verdict === 'borderline' ? 0.7 : 0.4,
    gating_violations: verdict === 'fail' ? ['rubric-2: required item not satisfied'] : [],
    target: 'default',
    answer: 'answer',
    duration_ms: 1234,
    evaluators: [
      {
        name: 'rubric',
        type: 'llm_judge',
        weight: 1,
        mode: 'checklist',
        score: ok ? 1 : 0.5,
        verdict: verdict === 'skipped' || verdict === 'inconclusive' ? 'fail' : verdict,
        gating_violations: [],
        checks: [
          {
            id: 'rubric-1',
            text: 'Greets the user',
            satisfied: true,
            weight: 1,
            required: false,
            reasoning: 'ok',
          },
          {
            id: 'rubric-2',
            text: 'Mentions that the link expires after 15 minutes <b>&</b> "nothing else"',
            satisfied: ok,
            weight: 1,
            required: true,
            reasoning: ok ? 'ok' : reason,
          },
        ],
      },
    ],
    ...extra,
  };
}

function run(cases: CaseResult[], over: Partial<RunResults> = {}): RunResults {
  return {
    version: 1,
    verdict: 'fail',
    score: 0.6,
    counts: countCases(cases.map((c) => c.verdict)),
    suites: [{ path: 'evals/reset.yaml', description: null, cases }],
    rubric: null,
    usage: emptyUsage(),
    partial: false,
    errors: [],
    warnings: [],
    history: [],
    judge: null,
    started_at: '2026-11-26T22:51:07.123Z',
    duration_ms: 5000,
    ...over,
  };
}

const mixed = () =>
  run(
    [
      judged('passes', 'pass'),
      judged('borders', 'borderline'),
      judged('fails', 'fail', {}, `Leaks ${SECRET}\u0007 and a bell\u0000 \u202e reversed \ud800 lone`),
      { ...judged('errs', 'error'), evaluators: [], error: 'target crashed: exit 3\n  at stack line' },
      {
        id: 'never-ran',
        verdict: 'skipped',
        skipped: 'budget',
        score: 0,
        gating_violations: [],
        evaluators: [],
        target: 'default',
        answer: null,
        duration_ms: 0,
      },
    ],
    {
      budget: { usd: 0.5, spent_usd: 0.5012, skipped: 1 },
      rubric: {
        path: 'RUBRIC.md',
        title: 'Search',
        hash: 'h',
        verdict: 'fail',
        score: 0.5,
        gates: [
          {
            command: 'npm test',
            verdict: 'pass',
            exit_code: 0,
            timed_out: false,
            duration_ms: 2000,
            output: 'ok',
          },
          {
            command: 'npm run lint',
            verdict: 'fail',
            exit_code: 1,
            timed_out: false,
            duration_ms: 500,
            output: 'x.ts:1 error',
          },
        ],
        checks: [
          {
            id: 'must-1',
            kind: 'must',
            text: 'Results are relevant',
            satisfied: false,
            reasoning: 'They are not.',
          },
          {
            id: 'nice-1',
            kind: 'nice',
            text: 'Names are clear',
            satisfied: false,
            reasoning: 'Some are not.',
          },
          { id: 'must-2', kind: 'must', text: 'Errors are friendly', satisfied: true, reasoning: 'Yes.' },
        ],
        judge_verdict: 'retry',
        feedback: null,
        counts: {
          gates_passed: 1,
          gates_total: 2,
          must_passed: 1,
          must_total: 2,
          nice_passed: 0,
          nice_total: 1,
        },
      },
    },
  );

test('the report is well-formed JUnit whose declared counts are what a reader counts', () => {
  const results = mixed();
  const redactor = new Redactor([SECRET]);
  const xml = renderJunit(results, (s) => redactor.redact(s));
  const { root, totals, cases } = validateJunit(xml);
  // dorny/test-reporter-style totals from the testcases: the cases, then the rubric's gates and criteria.
  // The budget-skipped case fails the check, so it is a failure, never a green `<skipped>`.
  expect(totals).toEqual({ tests: 10, passed: 5, failures: 4, errors: 1, skipped: 0 });
  expect(root.attributes).toMatchObject({ tests: '10', failures: '4', errors: '1', skipped: '0' });
  // One testsuite per suite file and one for the markdown rubric.
  expect(root.children.map((s) => s.attributes.name)).toEqual(['evals/reset.yaml', 'RUBRIC.md']);
  const suite = root.children[0]!;
  expect(suite.attributes).toMatchObject({
    tests: '5',
    failures: '2',
    errors: '1',
    skipped: '0',
    time: '4.936',
  });
  expect(suite.attributes.timestamp).toBe('2026-11-26T22:51:07');
  const byName = Object.fromEntries(cases.map((c) => [`${c.attributes.classname}#${c.attributes.name}`, c]));
  const failing = byName['evals/reset.yaml#fails']!;
  expect(failing.attributes.time).toBe('1.234');
  const failure = failing.children[0]!;
  expect(failure.name).toBe('failure');
  // The failed check by its id and text, then the judge's reason; controls removed, secret redacted.
  expect(failure.attributes.message).toContain(
    'rubric › rubric-2 "Mentions that the link expires after 15 minutes <b>&</b> "nothing else"" (required): Leaks',
  );
  expect(failure.attributes.message).not.toContain(SECRET);
  expect(xml).not.toContain(SECRET);
  // eslint-disable-next-line no-control-regex -- asserting the controls are gone
  expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202e]/);
  expect(byName['evals/reset.yaml#errs']!.children[0]).toMatchObject({
    name: 'error',
    attributes: { message: 'target crashed: exit 3' },
  });
  const skipped = byName['evals/reset.yaml#never-ran']!.children[0]!;
  expect(skipped.name).toBe('failure');
  expect(skipped.attributes.message).toMatch(
    /^skipped, not judged \(budget\): the spend cap budget-usd \$0\.5 was reached/,
  );
  // Under `fail-on: never` nothing fails the check: the same case is `<skipped>`.
  const never = validateJunit(renderJunit(results, (s) => s, 'never'));
  expect(never.totals).toMatchObject({ failures: 3, skipped: 1 });
  // Borderline passes, with why in its output.
  const border = byName['evals/reset.yaml#borders']!;
  expect(border.children.map((c) => c.name)).toEqual(['system-out']);
  expect(border.children[0]!.text).toContain('borderline: score 0.70');
  expect(byName['evals/reset.yaml#passes']!.children).toEqual([]);
  // The rubric: a failed gate and a failed must-have fail; a nice-to-have never does.
  expect(byName['RUBRIC.md#gate: npm run lint']!.children[0]!.name).toBe('failure');
  expect(byName['RUBRIC.md#must: must-1']!.children[0]!.attributes.message).toBe(
    'must-1 "Results are relevant" (required): They are not.',
  );
  expect(byName['RUBRIC.md#nice: nice-1']!.children.map((c) => c.name)).toEqual(['system-out']);
});

test.each([
  ['fail', 'skipped'],
  ['borderline', 'failure'],
  ['inconclusive', 'failure'],
  ['never', 'skipped'],
] as const)(
  'an inconclusive case under fail-on: %s is <%s> (a failure wherever it fails the check)',
  (failOn, element) => {
    const undecided = judged('undecided', 'inconclusive');
    const { cases } = validateJunit(renderJunit(run([undecided]), (s) => s, failOn));
    expect(cases[0]!.children.map((c) => c.name)).toEqual([element]);
  },
);

test('invalid input is one errored test, so no reader shows the run green', () => {
  const { totals, cases } = validateJunit(
    renderJunit(run([], { suites: [], errors: ['evals/x.yaml:3:5 required: missing input'] })),
  );
  expect(totals).toEqual({ tests: 1, passed: 0, failures: 0, errors: 1, skipped: 0 });
  expect(cases[0]!.children[0]!.attributes.message).toBe('evals/x.yaml:3:5 required: missing input');
});

test('the escapers keep any text well-formed and as written, minus what XML cannot carry', () => {
  const nasty = 'a<b>&c"d\'e]]>f\tg\nh\r\u0001\ufffe😀\udc00';
  const doc = `<?xml version="1.0" encoding="UTF-8"?><r a="${xmlAttr(nasty)}">${xmlText(nasty)}</r>`;
  const el = parseXml(doc);
  expect(el.attributes.a).toBe('a<b>&c"d\'e]]>f\tg\nh\r😀');
  expect(el.text).toBe('a<b>&c"d\'e]]>f\tg\nh\n😀');
});

test('a parser that is strict does reject what the escaper prevents', () => {
  expect(() => parseXml('<r>\u0001</r>')).toThrow();
  expect(() => parseXml('<r a="<"/>')).toThrow();
});

test('the report is written through no link: a symlink at its name is refused, the file it points to untouched', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'junit-link-'));
  const victim = path.join(dir, 'victim.js');
  writeFileSync(victim, 'untouched');
  symlinkSync(victim, path.join(dir, 'junit.xml'));
  expect(() => writeJunitFile(path.join(dir, 'junit.xml'), run([]), (s) => s, 'fail')).toThrow(/symlink/);
  expect(readFileSync(victim, 'utf8')).toBe('untouched');
});
