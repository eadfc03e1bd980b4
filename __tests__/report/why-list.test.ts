import { checkLabel, whyNot } from '../../src/report/case-reason.js';
import { COMMENT_LIMIT, renderReport } from '../../src/report/comment-body.js';
import { caseAnnotations } from '../../src/report/annotations.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { type CaseResult, countCases, emptyUsage, type RunResults } from '../../src/core/results.js';

/** A case of a realistic suite: three checklist items, the last two required; failing ones miss both. */
function caseOf(s: number, i: number, fails: boolean): CaseResult {
  const texts = [
    `Greets the customer by name in case ${i}`,
    `Mentions that the reset link for account ${i} expires after 15 minutes and cannot be reused`,
    `Never asks for the current password of account ${i} in any form, including hints about it`,
  ];
  return {
    id: `s${s}-case-${String(i).padStart(4, '0')}-password-reset-flow`,
    line: 3 + i * 9,
    verdict: fails ? 'fail' : 'pass',
    score: fails ? 0.33 : 1,
    gating_violations: fails
      ? ['rubric-2: required item not satisfied', 'rubric-3: required item not satisfied']
      : [],
    target: 'default',
    answer: 'x'.repeat(300),
    duration_ms: 800,
    evaluators: [
      {
        name: 'rubric',
        type: 'llm_judge',
        weight: 1,
        mode: 'checklist',
        score: fails ? 0.33 : 1,
        verdict: fails ? 'fail' : 'pass',
        gating_violations: [],
        checks: texts.map((text, k) => ({
          id: `rubric-${k + 1}`,
          text,
          satisfied: k === 0 || !fails,
          weight: 1,
          required: k > 0,
          reasoning:
            k === 0 || !fails
              ? 'ok'
              : `The answer does not do this: it says something else entirely about item ${k}.`,
        })),
      },
    ],
  };
}

function bigRun(): RunResults {
  const suites = Array.from({ length: 4 }, (_, s) => ({
    path: `evals/support-${s}.yaml`,
    description: null,
    cases: Array.from({ length: 500 }, (_, i) => caseOf(s, i, i % 4 === 1)),
  }));
  const all = suites.flatMap((s) => s.cases);
  return {
    version: 1,
    verdict: 'fail',
    score: 0.83,
    counts: countCases(all.map((c) => c.verdict)),
    suites,
    rubric: null,
    usage: emptyUsage(),
    partial: false,
    errors: [],
    warnings: [],
    history: [],
    judge: { model: 'gpt-4.1-mini', base_url: 'https://api.openai.com/v1' },
    started_at: '2026-11-26T00:00:00Z',
    duration_ms: 60_000,
  };
}

test('a failed check is named by id, text and required, then the reason', () => {
  const c = caseOf(0, 1, true);
  expect(whyNot(c)).toEqual([
    'rubric › rubric-2 "Mentions that the reset link for account 1 expires after 15 minutes and cannot be reused" (required): The answer does not do this: it says something else entirely about item 1.',
    'rubric › rubric-3 "Never asks for the current password of account 1 in any form, including hints about it" (required): The answer does not do this: it says something else entirely about item 2.',
  ]);
  // A long text is cut to one bounded line; a check without text (older results) keeps its id alone.
  expect(checkLabel({ id: 'r', text: `${'word '.repeat(40)}\nend`, required: false })).toMatch(
    /^r "(word ){19}word…"$/,
  );
  expect(checkLabel({ id: 'r', required: true })).toBe('r (required)');
});

test('2,000 cases, 500 failing: the comment fits and names every failed check’s text for each case it explains', () => {
  const r = bigRun();
  const text = renderReport(r, { sticky: true });
  expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  let explained = 0;
  for (const s of r.suites)
    for (const c of s.cases.filter((x) => x.verdict === 'fail')) {
      const block = text.indexOf(`**\`${c.id}\`**`);
      if (block < 0) continue;
      explained++;
      const after = text.slice(block, text.indexOf('\n\n', block));
      for (const k of c.evaluators[0]!.checks!.filter((x) => !x.satisfied))
        expect(after).toContain(`${k.id} "${k.text!.slice(0, 99)}`);
    }
  // Every failing row the comment shows is explained (10 per suite at the tightest fold).
  const rows = r.suites
    .flatMap((s) => s.cases)
    .filter((c) => c.verdict === 'fail' && text.includes(`| ❌ | \`${c.id}\``));
  expect(rows.length).toBeGreaterThanOrEqual(40);
  expect(explained).toBe(rows.length);
});

test('annotations and the terminal name the failed checks by their text too', () => {
  const r = bigRun();
  const a = caseAnnotations(r)[0]!;
  expect(a.message).toMatch(
    /^case 's0-case-0001-password-reset-flow' failed \(score 0\.33\): rubric › rubric-2 "Mentions that the reset link/,
  );
  const term = renderTerminal(r);
  expect(term).toContain('rubric › rubric-3 "Never asks for the current password of account 1 in any form');
});
