import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { Workspace } from '../../../src/core/workspace.js';
import { tmpDir } from '../../helpers/judge.js';

/** promptfoo's select-best and max-score as the loader reads them: onto every sibling case. */
function load(yaml: string) {
  const root = tmpDir('re-pf-compare-');
  writeFileSync(path.join(root, 'promptfooconfig.yaml'), yaml);
  const r = loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root));
  const errors = r.diagnostics.map((d) => `${d.severity} ${d.line}:${d.column} ${d.rule} ${d.message}`);
  return { errors, cases: r.suite?.cases ?? [] };
}

const TWO_BY_TWO = `providers: [echo, { id: 'openai:gpt-4.1-mini', label: mini }]
prompts: [{ raw: 'A {{ q }}', label: a }, { raw: 'B {{ q }}', label: b }]
`;

test("defaultTest's assertions and the test's own have distinct names, and max-score points at each by position", () => {
  const x = load(`providers: [echo]
prompts: ['{{ q }} only', 'Answer: {{ q }}']
defaultTest:
  assert:
    - { type: contains, value: Answer }
tests:
  - vars: { q: Paris }
    assert:
      - { type: contains, value: only }
      - type: max-score
`);
  expect(x.errors).toEqual([]);
  // Both lists number their own from 1: the merged list renames the second, as promptfoo keeps both.
  expect(x.cases[0]!.evaluators.map((e) => e.name)).toEqual(['contains-1', 'contains-1 (2)']);
  expect(x.cases[0]!.compare!.maxScore!.parts).toEqual([
    { at: [0], path: ['contains-1'], weight: 1 },
    { at: [1], path: ['contains-1 (2)'], weight: 1 },
  ]);
});

test("every sibling carries the test's comparison, its siblings in promptfoo's order (provider, then prompt)", () => {
  const x = load(`${TWO_BY_TWO}tests:
  - id: t
    vars: { q: hi }
    assert:
      - { type: contains, value: hi }
      - { type: assert-set, assert: [{ type: equals, value: x }, { type: not-contains, value: y }] }
      - { type: select-best, value: 'the most {{ q }}' }
      - type: max-score
        value: { method: sum, weights: { contains: 2, not-contains: 0 }, threshold: 1.5 }
`);
  expect(x.errors).toEqual([]);
  // Cases come prompt by prompt; promptfoo compares provider by provider.
  expect(x.cases.map((c) => c.id)).toEqual([
    't__prompt_a__provider_echo',
    't__prompt_a__provider_mini',
    't__prompt_b__provider_echo',
    't__prompt_b__provider_mini',
  ]);
  const compare = x.cases[0]!.compare!;
  expect(x.cases.every((c) => c.compare === compare)).toBe(true);
  expect(compare).toEqual({
    cases: [
      't__prompt_a__provider_echo',
      't__prompt_b__provider_echo',
      't__prompt_a__provider_mini',
      't__prompt_b__provider_mini',
    ],
    selectBest: { criterion: 'the most hi', name: 'select-best-3' },
    maxScore: {
      method: 'sum',
      name: 'max-score-4',
      threshold: 1.5,
      parts: [
        { at: [0], path: ['contains-1'], weight: 2 },
        { at: [1, 0], path: ['assert-set-2', 'equals-1'], weight: 1 },
        { at: [1, 1], path: ['assert-set-2', 'not-contains-2'], weight: 0 },
      ],
    },
  });
  // Neither becomes an evaluator: they grade no answer on its own, and weigh nothing in the score.
  expect(x.cases[0]!.evaluators.map((e) => e.name)).toEqual(['contains-1', 'assert-set-2']);
});

test("defaultTest's comparison applies to every test; a test's filters decide its siblings", () => {
  const x = load(`${TWO_BY_TWO}defaultTest:
  assert: [{ type: select-best, value: clearest }]
tests:
  - id: t
    vars: { q: hi }
    providers: [mini]
`);
  expect(x.errors).toEqual([]);
  expect(x.cases.map((c) => c.compare?.cases)).toEqual([
    ['t__prompt_a__provider_mini', 't__prompt_b__provider_mini'],
    ['t__prompt_a__provider_mini', 't__prompt_b__provider_mini'],
  ]);
});

test('what cannot be compared is refused at file:line, each with why', () => {
  const x = load(`providers: [echo]
prompts: ['{{ q }}']
tests:
  - vars: { q: one run }
    assert: [{ type: select-best, value: best }]
  - vars: { q: hi }
    assert: [{ type: max-score }]
`);
  expect(x.errors).toEqual([
    "error 5:14 compare-needs-two select-best compares a test's answers across its prompts and providers, and this test runs on one (prompt, provider); give the suite two or more",
    "error 7:14 compare-needs-two max-score compares a test's answers across its prompts and providers, and this test runs on one (prompt, provider); give the suite two or more",
  ]);
  const y = load(`${TWO_BY_TWO}tests:
  - vars: { q: a }
    assert: [{ type: max-score }]
  - vars: { q: b }
    options: { transform: output.trim() }
    assert:
      - { type: not-select-best, value: x }
      - { type: select-best }
      - { type: select-best, value: x, threshold: 0.5, transform: output }
      - { type: max-score, value: { method: median, wieghts: {} } }
      - { type: max-score, value: 3 }
      - { type: select-best, value: again }
`);
  expect(y.errors).toEqual([
    "error 5:14 compare-needs-scores max-score picks the answer with the best score over the test's other assertions, and this test has none",
    "error 9:11 unsupported-assertion 'not-select-best' is not an assertion (promptfoo has no inverse comparison)",
    "error 10:11 unsupported-assertion select-best with the test's `options.transform` is not run: the judge would compare the answers untransformed, where promptfoo compares them transformed",
    'error 10:9 value `select-best` needs `value`: the criterion the best answer meets',
    "error 11:56 unsupported-key select-best sees the answers as the targets gave them; an assertion's `transform` is not applied to it",
    'error 11:40 unsupported-key select-best has no threshold: the answer the judge picks passes, the others fail',
    "error 11:11 unsupported-assertion select-best with the test's `options.transform` is not run: the judge would compare the answers untransformed, where promptfoo compares them transformed",
    "error 12:53 unknown-key unknown field 'wieghts': did you mean 'weights'?",
    "error 12:45 value `method` is `average` or `sum`, not 'median'",
    'error 13:35 value `max-score` `value` is an object: `{method: average|sum, weights: {<type>: n}, threshold: n}`',
    "error 14:11 unsupported-assertion select-best with the test's `options.transform` is not run: the judge would compare the answers untransformed, where promptfoo compares them transformed",
    'error 14:9 duplicate a test has one `select-best` (promptfoo runs only the first)',
  ]);
});

test('AgentV 5-shaped suites have no comparison assertions: refused by name', () => {
  const x = load(`default_test: {}
tests:
  - id: a
    vars: { input: hi }
    assert: [{ type: select-best, value: x }]
`);
  expect(x.errors).toEqual([
    "error 5:16 unsupported-assertion 'select-best' compares the answers of a promptfoo test's prompts and providers; it is read in promptfoo-shaped configs only",
  ]);
});

test('inside an assert-set it is refused (promptfoo skips it there without a word)', () => {
  const x = load(`${TWO_BY_TWO}tests:
  - vars: { q: a }
    assert:
      - type: assert-set
        assert: [{ type: contains, value: a }, { type: select-best, value: x }]
`);
  expect(x.errors).toEqual([
    "error 7:50 unsupported-assertion select-best inside an assert-set is not run (promptfoo ignores it there); write it in the test's `assert`",
  ]);
});
