import fc from 'fast-check';
import { code, codeBlock, inert } from '../../src/report/inert.js';
import { renderReport, utf8Bytes } from '../../src/report/comment-body.js';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { liveParts, visibleText } from '../helpers/live-markdown.js';

/** A run where every piece of text the action did not write is `q` (answers, judges, gates, PR). */
function quotedEverywhere(q: string): RunResults {
  const failing: CaseResult = {
    id: `id ${q}`,
    line: 3,
    verdict: 'fail',
    score: 0.2,
    gating_violations: [`names-paris: ${q}`],
    target: 'default',
    answer: q,
    duration_ms: 5,
    evaluators: [
      {
        name: `judge ${q}`,
        type: 'llm_judge',
        weight: 1,
        mode: 'checklist',
        score: 0.2,
        verdict: 'fail',
        gating_violations: [],
        checks: [{ id: `check ${q}`, satisfied: false, weight: 1, required: true, reasoning: q }],
      },
    ],
  };
  const errored: CaseResult = {
    ...failing,
    id: `err ${q}`,
    verdict: 'error',
    error: `${q}\n    at x (/home/runner/work/a.js:1:1)`,
  };
  return {
    version: 1,
    verdict: 'fail',
    score: 0.2,
    counts: { pass: 0, borderline: 0, fail: 1, error: 1 },
    suites: [{ path: `evals/${q}.yaml`, description: q, cases: [failing, errored] }],
    rubric: {
      path: `RUBRIC ${q}.md`,
      title: q,
      hash: 'abc',
      verdict: 'fail',
      score: 0,
      gates: [
        {
          command: `echo ${q}`,
          verdict: 'fail',
          exit_code: 1,
          timed_out: false,
          duration_ms: 10,
          output: `${q}\n${q}`,
        },
      ],
      checks: [{ id: `must-1 ${q}`, kind: 'must', text: q, satisfied: false, reasoning: q }],
      judge_verdict: 'retry',
      feedback: q,
      counts: {
        gates_passed: 0,
        gates_total: 1,
        must_passed: 0,
        must_total: 1,
        nice_passed: 0,
        nice_total: 0,
      },
      error: `${q}\nstack line`,
    },
    usage: { judge_calls: 1, cached_calls: 0, prompt_tokens: 1, completion_tokens: 1, cost_usd: null },
    partial: false,
    errors: [],
    warnings: [],
    history: [
      { iteration: 0, commit: q, verdict: 'fail', score: 0, counts: q, feedback: q, rubric_hash: q, at: '' },
      {
        iteration: 1,
        commit: 'abc1234',
        verdict: 'fail',
        score: 0,
        counts: q,
        feedback: q,
        rubric_hash: 'h',
        at: '',
      },
    ],
    judge: { model: q, base_url: 'http://127.0.0.1' },
    started_at: '',
    duration_ms: 1,
  };
}

const RUN_URL = 'https://github.com/o/r/actions/runs/1';
const hostile =
  'cc @octocat and @acme/security-team, see #123 and acme/widgets#7 and GH-9; ' +
  '![pixel](https://evil.example/p.png) [click](https://evil.example) <img src=https://evil.example/i.png> ' +
  '<script>alert(1)</script> https://evil.example/x www.evil.example mail a@evil.example &#64;bob ' +
  'abc\u202Edcb\u2066x\u2069 <!-- rubric-eval-history:W10= --> ``` `code` | pipe \\ back';

describe('quoted text is inert in the comment and the summary', () => {
  test.each([
    ['the comment', { sticky: true, runUrl: RUN_URL }],
    ['the job summary', { runUrl: RUN_URL }],
  ])('%s: a hostile PR text in every field renders nothing live, and reads as written', (_, opts) => {
    const body = renderReport(quotedEverywhere(hostile), opts);
    expect(liveParts(body, [RUN_URL])).toEqual([]);
    const seen = visibleText(body);
    // Readable: the reasoning's words are all there, mentions and references as plain text.
    for (const words of [
      'cc @octocat and @acme/security-team',
      '#123',
      'acme/widgets#7',
      '<script>alert(1)</script>',
    ])
      expect(seen).toContain(words);
    // The bidi controls are shown, not obeyed.
    expect(seen).toContain('abc⟨U+202E⟩dcb⟨U+2066⟩x⟨U+2069⟩');
    // An internal error is one line: no stack, no runner path.
    expect(body).not.toContain('at x (');
    expect(body).not.toContain('/home/runner');
    expect(body).not.toContain('stack line');
  });

  test('the issue 16 judge: no live mention anywhere in a 10-case comment', () => {
    const r = quotedEverywhere('cc @octocat and @acme/security-team');
    r.suites[0]!.cases = Array.from({ length: 10 }, (_, i) => ({
      ...r.suites[0]!.cases[0]!,
      id: `case-${i}`,
    }));
    const body = renderReport(r, { sticky: true });
    expect(liveParts(body)).toEqual([]);
    expect((visibleText(body).match(/@octocat/g) ?? []).length).toBeGreaterThanOrEqual(10);
  });

  test('math from quoted text is not math: the dollar signs are escaped and shown', () => {
    expect(inert('$\\color{red}{PASS}$')).toBe('\\$\\\\color{red}{PASS}\\$');
    expect(visibleText(inert('$\\color{red}{PASS}$')).trim()).toBe('$\\color{red}{PASS}$');
  });

  test('code is shown as written: a code span longer than any backtick run inside, entities never shown', () => {
    expect(code('cat < src.txt')).toBe('`cat < src.txt`');
    expect(code('a `b` c')).toBe('``a `b` c``');
    expect(code('`x`')).toBe('`` `x` ``');
    expect(code('a | b', { table: true })).toBe('`a \\| b`');
    expect(visibleText(code("! grep -q `printf TODO` src.txt && echo '<ok>' & @me"))).toBe(
      " ! grep -q `printf TODO` src.txt && echo '<ok>' & @me ",
    );
    const block = codeBlock('line\n```\nnot the end\n````');
    expect(visibleText(block).trim()).toBe('line ``` not the end ````');
    const row = renderReport(quotedEverywhere('x'), {})
      .split('\n')
      .find((l) => l.includes('echo x'));
    expect(row).toContain('`echo x`');
    const gate = renderReport({
      ...quotedEverywhere('x'),
      rubric: {
        ...quotedEverywhere('x').rubric!,
        gates: [
          {
            command: 'cat < src.txt',
            verdict: 'fail',
            exit_code: 1,
            timed_out: false,
            duration_ms: 1,
            output: 'a < b',
          },
        ],
      },
    });
    expect(gate).toContain('| `cat < src.txt` |');
    expect(gate).toContain('<summary>Output of <code>cat &lt; src.txt</code></summary>');
    expect(visibleText(gate)).toContain('Output of cat < src.txt');
  });

  test('history in quoted text is not the history: only the last line is read', async () => {
    const { parseHistory, historyBlock } = await import('../../src/report/history.js');
    const forged = historyBlock([
      {
        iteration: 99,
        commit: 'f0f0f0f',
        verdict: 'pass',
        score: 1,
        counts: null,
        feedback: 'forged',
        rubric_hash: null,
        at: '',
      },
    ]);
    const r = quotedEverywhere(`gate says\n${forged}`);
    r.history = [];
    const body = renderReport(r, { sticky: true });
    expect(body).toContain('rubric-eval-history:');
    expect(parseHistory(body)).toEqual([]);
  });

  test('the job summary is bounded in UTF-8 bytes, not characters', () => {
    const r = quotedEverywhere('ok');
    const wide = '語'.repeat(2000); // 3 bytes each
    r.suites[0]!.cases = Array.from({ length: 400 }, (_, i) => ({
      ...r.suites[0]!.cases[0]!,
      id: `c${i}`,
      evaluators: [
        {
          ...r.suites[0]!.cases[0]!.evaluators[0]!,
          checks: [{ id: 'k', satisfied: false, weight: 1, required: true, reasoning: wide }],
        },
      ],
    }));
    r.rubric = {
      ...r.rubric!,
      gates: Array.from({ length: 200 }, (_, i) => ({
        command: `g${i}`,
        verdict: 'fail' as const,
        exit_code: 1,
        timed_out: false,
        duration_ms: 1,
        output: wide.repeat(3),
      })),
    };
    const summary = renderReport(r);
    expect(utf8Bytes(summary)).toBeLessThanOrEqual(1_000_000);
    expect(summary.length).toBeGreaterThan(250_000);
    expect(liveParts(summary)).toEqual([]);
  });
});

/** Fragments a hostile author would use, and plain words. */
const fragment = fc.oneof(
  fc.constantFrom(
    '@octocat',
    '@acme/security-team',
    '#12',
    'o/r#7',
    'GH-3',
    'https://e.vil/a',
    'www.e.vil',
    'x@e.vil',
    '[a](https://e.vil)',
    '![i](https://e.vil/i.png)',
    '<img src=x>',
    '<a href=y>z</a>',
    '<details>',
    '</details>',
    '&#64;u',
    '&amp;',
    '\u202E',
    '\u2067',
    '\u200F',
    '`',
    '```',
    '|',
    '\\',
    '<!--',
    '-->',
    '\n',
    '\n\n',
    '> ',
    '- ',
    '# ',
    '<<<',
    '$\\href{https://e.vil}{x}$',
    'javascript:alert(1)',
    'mailto:x@y.z',
    '](',
    '*',
    '_',
  ),
  fc.stringMatching(/^[a-z]{1,8}$/),
  fc.string({ maxLength: 6 }),
);
const hostileText = fc.array(fragment, { minLength: 1, maxLength: 14 }).map((parts) => parts.join(' '));

test("property: over random hostile text in every field, nothing live survives outside the action's own words", () => {
  fc.assert(
    fc.property(hostileText, fc.boolean(), (q, sticky) => {
      const body = renderReport(quotedEverywhere(q), { sticky, runUrl: RUN_URL });
      expect(liveParts(body, [RUN_URL])).toEqual([]);
    }),
    { numRuns: 300 },
  );
});

test('property: quoted prose stays readable (every word of the reasoning is shown as written)', () => {
  const words = fc.array(
    fc.constantFrom(
      '@octocat',
      '#12',
      'o/r#7',
      '<b>',
      'a|b',
      'x`y',
      'back\\slash',
      '&amp;',
      'www.e.vil',
      'https://e.vil/p',
      'plain',
      'Ünïcödé',
      '[l](u)',
    ),
    { minLength: 1, maxLength: 12 },
  );
  fc.assert(
    fc.property(words, (list) => {
      const q = list.join(' ');
      expect(visibleText(inert(q))).toContain(q);
    }),
    { numRuns: 300 },
  );
});

test('the detector itself sees each live thing in raw text (so an empty list means something)', () => {
  const found = liveParts(
    'cc @octocat #12 GH-3 https://e.vil www.e.vil x@e.vil ![i](https://e.vil/i.png) <img src=x> <!-- hi --> a\u202Eb',
  ).join('\n');
  for (const what of [
    'mention',
    'issue reference',
    'autolink',
    'link https://e.vil',
    'element <img',
    'html comment',
    'bidi',
  ])
    expect(found).toContain(what);
});
