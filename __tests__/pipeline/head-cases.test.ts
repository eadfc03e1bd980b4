import { loadHeadCases } from '../../src/pipeline/head-cases.js';
import { caseKey } from '../../src/pipeline/record-bundle.js';

/** The judge stage's head cases: only their inputs are read (docs/cancel-during-load.md). */

const HEAD_SUITE = [
  'prompts: ["{{ q }}"]',
  'tests:',
  '  - id: scripted',
  '    vars: { q: What is the refund window? }',
  '    assert:',
  // The script is the pull request's, not among the files the stage reads: never needed.
  '      - { type: javascript, value: "file://checks/refund.js" }',
  '      - { type: regex, value: "(?=lookahead refused when compiled)" }',
  '',
].join('\n');

test("a head case's assertions are not read: a file:// script the stage does not have, a refused pattern, and the case still answers", async () => {
  const got = await loadHeadCases(
    ['evals/support.yaml'],
    () => Promise.resolve(new Map([['evals/support.yaml', HEAD_SUITE]])),
    [{ suite: 'evals/support.yaml', id: 'scripted' }],
  );
  const c = got.get(caseKey('evals/support.yaml', 'scripted'));
  expect(c && 'evalCase' in c ? c.evalCase.inputMessages[0]!.parts : c).toEqual([
    { type: 'text', text: 'What is the refund window?' },
  ]);
});

test('a head case whose OpenAI provider keeps its tools in a file the stage does not have still answers', async () => {
  const head = [
    'providers:',
    '  - id: openai:gpt-4.1-mini',
    '    config: { tools: file://tools.yaml }',
    'prompts: ["{{ q }}"]',
    'tests:',
    '  - id: t1',
    '    vars: { q: weather in Paris? }',
    '    assert: [{ type: is-valid-openai-tools-call }]',
    '',
  ].join('\n');
  const got = await loadHeadCases(
    ['evals/promptfooconfig.yaml'],
    () => Promise.resolve(new Map([['evals/promptfooconfig.yaml', head]])),
    [{ suite: 'evals/promptfooconfig.yaml', id: 't1' }],
  );
  const c = got.get(caseKey('evals/promptfooconfig.yaml', 't1'));
  expect(c && 'evalCase' in c ? c.evalCase.inputMessages[0]!.parts : c).toEqual([
    { type: 'text', text: 'weather in Paris?' },
  ]);
});

test('a cancel before the head suite is read leaves its cases errors that say so, never answered', async () => {
  const controller = new AbortController();
  controller.abort();
  const got = await loadHeadCases(
    ['evals/support.yaml'],
    () => Promise.resolve(new Map([['evals/support.yaml', HEAD_SUITE]])),
    [{ suite: 'evals/support.yaml', id: 'scripted' }],
    controller.signal,
  );
  expect(got.get(caseKey('evals/support.yaml', 'scripted'))).toEqual({
    error: expect.stringMatching(
      /the pull request's evals\/support\.yaml does not load: .*cancelled while loading suites: 0 of 1 loaded/,
    ),
  });
});
