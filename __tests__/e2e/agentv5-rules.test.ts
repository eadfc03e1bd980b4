import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * AgentV 5's rules where they differ from promptfoo's, graded end to end through dist/cli.js:
 * the order of a test's assertions, a judge's stated score beside its checks, and an assert-set's
 * own threshold against the test's. A promptfoo-shaped file in the same run keeps promptfoo's.
 */
let judge: FakeOpenAI;
beforeAll(async () => {
  // A checklist whose criterion says `stated=<s>` is answered the promptfoo way: every check
  // satisfied, but `pass: false` and that score; any other request gets the all-good answer.
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      const stated = /stated=([0-9.]+)/.exec(desc.text)?.[1];
      if (desc.mode !== 'checklist' || stated === undefined) return undefined;
      return {
        reason: `stated ${stated}`,
        pass: false,
        score: Number(stated),
        checks: desc.ids.map((id: string) => ({ id, satisfied: true, reasoning: 'named' })),
      };
    },
  });
});
afterAll(() => judge.close());

const SET = (threshold: number) => `      - metric: location
        type: assert-set
        threshold: ${threshold}
        assert:
          - { type: contains, value: Paris }
          - { type: contains, value: Berlin }`;

const AGENTV5 = `providers:
  - local
default_test:
  assert:
    - { type: contains, value: Paris, metric: from-default }
assert:
  - { type: not-contains, value: London, metric: from-suite }
tests:
  - id: own-first-stated
    vars: { input: Where is Paris? }
    assert:
      - { type: icontains, value: france }
      - Names France as the country (stated=0.1)
  - id: set-at-half
    execution: { threshold: 0.5, skip_defaults: true }
    vars: { input: Where is Paris? }
    assert:
${SET(0.5)}
  - id: set-at-default
    execution: { skip_defaults: true }
    vars: { input: Where is Paris? }
    assert:
${SET(0.5)}
  - id: failed-set-at-half
    execution: { threshold: 0.5, skip_defaults: true }
    vars: { input: Where is Paris? }
    assert:
${SET(1)}
`;

const PROMPTFOO = `prompts: ["{{ input }}"]
defaultTest:
  assert:
    - { type: contains, value: Paris, metric: from-default }
tests:
  - description: promptfoo-order
    vars: { input: Where is Paris? }
    assert:
      - { type: icontains, value: france }
      - Names France as the country (stated=0.1)
`;

test('an AgentV 5 suite is graded by AgentV 5 rules and a promptfoo one by promptfoo rules, through dist/cli.js', async () => {
  const root = tmpDir('re-agentv5-rules-');
  mkdirSync(path.join(root, 'evals'));
  mkdirSync(path.join(root, '.agentv'));
  writeFileSync(path.join(root, 'evals/agentv5.yaml'), AGENTV5);
  writeFileSync(path.join(root, 'evals/promptfoo.yaml'), PROMPTFOO);
  writeFileSync(path.join(root, '.agentv/providers.yaml'), '- id: mock\n  label: local\n  response: "{}"\n');
  const answer = 'Paris is the capital of France.';
  const ids = ['own-first-stated', 'set-at-half', 'set-at-default', 'failed-set-at-half', 'test-1'];
  writeFileSync(
    path.join(root, 'answers.jsonl'),
    ids.map((id) => JSON.stringify({ eval_id: id, candidate_answer: answer })).join('\n'),
  );
  const r = await runCli(
    [
      'run',
      'evals/*.yaml',
      '--answers',
      'answers.jsonl',
      '--judge-base-url',
      judge.url,
      '--no-cache',
      '--out',
      'results.json',
    ],
    { cwd: root, env: { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-test-000000' } },
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(1);
  const results = JSON.parse(readFileSync(path.join(root, 'results.json'), 'utf8')) as RunResults;
  const byId = new Map<string, CaseResult>(results.suites.flatMap((s) => s.cases.map((c) => [c.id, c])));
  const named = (id: string) => byId.get(id)!.evaluators.map((e) => `${e.name}:${e.score}:${e.verdict}`);

  // AgentV 5: the test's own first, then default_test's, then the suite's; the checklist takes
  // the judge's stated 0.1 (its one check is satisfied), so the test scores 3.1 / 4 < 0.8.
  expect(named('own-first-stated')).toEqual([
    'icontains-1:1:pass',
    'criteria:0.1:fail',
    'from-default:1:pass',
    'from-suite:1:pass',
  ]);
  expect(byId.get('own-first-stated')).toMatchObject({ verdict: 'fail', score: 0.775 });
  const criteria = byId.get('own-first-stated')!.evaluators[1]!;
  expect(criteria.checks!.map((c) => c.satisfied)).toEqual([true]);
  expect(criteria.reasoning).toBe('stated 0.1');

  // The set's own threshold decides the set; the test's threshold decides the test, by its score.
  expect(byId.get('set-at-half')).toMatchObject({ verdict: 'pass', score: 0.5 });
  expect(named('set-at-half')).toEqual(['location:0.5:pass']);
  expect(byId.get('set-at-default')).toMatchObject({ verdict: 'fail', score: 0.5 });
  expect(named('set-at-default')).toEqual(['location:0.5:pass']);
  expect(byId.get('failed-set-at-half')).toMatchObject({ verdict: 'pass', score: 0.5 });
  expect(named('failed-set-at-half')).toEqual(['location:0.5:fail']);

  // promptfoo: defaultTest's first, and the checklist scored by its checks (the stated score aside).
  expect(named('test-1')).toEqual(['from-default:1:pass', 'icontains-1:1:pass', 'criteria:1:pass']);
  expect(byId.get('test-1')).toMatchObject({ verdict: 'pass', score: 1 });
  expect(results.usage.judge_calls).toBe(2);
});
