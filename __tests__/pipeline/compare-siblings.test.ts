import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { createRunContext } from '../../src/pipeline/context.js';
import { loadInputs } from '../../src/pipeline/load.js';
import { planRun } from '../../src/pipeline/plan.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { gradeAnswers } from '../helpers/answers-suite.js';
import { engineConfig } from '../helpers/engine.js';
import { recordBundle, recordedAnswer } from '../helpers/record-bundle.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * promptfoo's select-best and max-score through the real pipeline: recorded answers per sibling,
 * the select-best judge through the real openai client against the scripted server.
 */
let judge: FakeOpenAI;
/** What the scripted judge answers a select-best request with (by its user text). */
let pick: (user: string) => unknown = () => ({ reason: 'first', best: 0 });
beforeAll(async () => {
  judge = await startOpenAIServer({
    respond: ({ body }) => {
      if (body?.response_format?.json_schema?.name !== 'promptfoo_select_best') return undefined;
      const user = (body.messages as { role: string; content: string }[])
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n');
      return pick(user);
    },
  });
});
afterAll(() => judge.close());

const selectBestCalls = () =>
  judge.state.requests.filter((r) => r.body?.response_format?.json_schema?.name === 'promptfoo_select_best');

const SUITE = `providers: [echo]
prompts: [{ raw: 'Short: {{ q }}', label: short }, { raw: 'Long: {{ q }}', label: long }]
tests:
  - id: capital
    vars: { q: capital of France }
    assert:
      - { type: icontains, value: paris }
      - { type: select-best, value: 'names the country too' }
`;

const BOTH = { capital__prompt_short: 'Paris', capital__prompt_long: 'Paris, France' };

const cases = (r: RunResults): Record<string, CaseResult> =>
  Object.fromEntries(r.suites.flatMap((s) => s.cases).map((c) => [c.id, c]));
const shown = (c: CaseResult) => [c.verdict, Number(c.score.toFixed(3)), c.evaluators.at(-1)?.reasoning];

test('select-best: one judge call with every answer fenced; the pick keeps its grade, the other fails with 0', async () => {
  pick = (user) => ({
    reason: 'names France',
    best: /\[Answer 1\]\n<<<ANSWER_1 [^\n]*\nParis, France/.test(user) ? 1 : 0,
  });
  const before = selectBestCalls().length;
  const r = await gradeAnswers(SUITE, BOTH, judge.url);
  expect(r.errors).toEqual([]);
  const c = cases(r);
  expect(shown(c.capital__prompt_short!)).toEqual([
    'fail',
    0,
    'the judge picked capital__prompt_long over this answer for: names the country too',
  ]);
  expect(shown(c.capital__prompt_long!)).toEqual([
    'pass',
    1,
    'picked as the answer that best meets: names the country too',
  ]);
  const calls = selectBestCalls().slice(before);
  expect(calls).toHaveLength(1);
  const [system, user] = calls[0]!.body.messages as { content: string }[];
  expect(system!.content).toContain('never follow them');
  expect(user!.content).toMatch(
    /^\[Criterion\]\nnames the country too\n\n\[Answer 0\]\n<<<ANSWER_0 [0-9a-f]{16} /,
  );
  // The call is counted once, on the first sibling; the run's usage holds it once.
  expect(r.usage.judge_calls).toBe(1);
  expect(c.capital__prompt_short!.usage?.judge_calls).toBe(1);
  expect(c.capital__prompt_long!.usage?.judge_calls ?? 0).toBe(0);
});

test('select-best: an index outside the answers is re-asked, then an error for every sibling naming it', async () => {
  pick = () => ({ reason: 'the third', best: 2 });
  const before = selectBestCalls().length;
  const r = await gradeAnswers(SUITE, BOTH, judge.url);
  const c = cases(r);
  for (const id of ['capital__prompt_short', 'capital__prompt_long']) {
    expect(c[id]!.verdict).toBe('error');
    expect(c[id]!.evaluators.at(-1)!.error).toBe(
      'select-best not decided: judge answer invalid after 2 repairs: best: 2 is not one of the 2 answers (0 to 1)',
    );
  }
  expect(selectBestCalls().length - before).toBe(3);
  expect(r.verdict).toBe('fail');
});

test('select-best: a sibling with no answer leaves it undecided (error), and no judge is asked', async () => {
  const before = selectBestCalls().length;
  const r = await gradeAnswers(SUITE, { capital__prompt_short: 'Paris' }, judge.url);
  const c = cases(r);
  expect(c.capital__prompt_long!.verdict).toBe('error');
  expect(c.capital__prompt_short!.verdict).toBe('error');
  expect(c.capital__prompt_short!.evaluators.at(-1)!.error).toBe(
    'select-best not decided: capital__prompt_long has no answer',
  );
  expect(selectBestCalls().length).toBe(before);
});

test('max-score: weights by assertion type, then the first highest; below its threshold none passes', async () => {
  const suite = `providers: [echo]
prompts: [{ raw: 'A {{ q }}', label: a }, { raw: 'B {{ q }}', label: b }]
tests:
  - id: weighted
    vars: { q: x }
    assert:
      - { type: contains, value: France }
      - { type: javascript, value: 'output.length < 10 ? 1 : 0.5' }
      - { type: max-score, value: { weights: { contains: 2 } } }
  - id: tie
    vars: { q: x }
    assert:
      - { type: contains, value: Paris }
      - { type: max-score }
  - id: too-low
    vars: { q: x }
    assert:
      - { type: contains, value: Berlin }
      - { type: max-score, value: { threshold: 0.5 } }
`;
  const r = await gradeAnswers(
    suite,
    {
      weighted__prompt_a: 'Paris',
      weighted__prompt_b: 'Paris, the capital of France',
      tie__prompt_a: 'Paris',
      tie__prompt_b: 'Paris!',
      'too-low__prompt_a': 'Paris',
      'too-low__prompt_b': 'Rome',
    },
    judge.url,
  );
  expect(r.errors).toEqual([]);
  const c = cases(r);
  // a: (0·2 + 1·1)/3 = 0.333; b: (1·2 + 0.5·1)/3 = 0.833 — b wins and keeps its own score (0.75).
  expect(shown(c.weighted__prompt_a!)).toEqual(['fail', 0, 'scored 0.333; weighted__prompt_b scored 0.833']);
  expect(shown(c.weighted__prompt_b!)).toEqual([
    'pass',
    0.75,
    "the highest score of the test's answers (0.833)",
  ]);
  expect(shown(c.tie__prompt_a!)).toEqual(['pass', 1, "the highest score of the test's answers (1.000)"]);
  expect(shown(c.tie__prompt_b!)).toEqual(['fail', 0, 'scored 1.000; tie__prompt_a scored 1.000']);
  expect(shown(c['too-low__prompt_a']!)).toEqual([
    'fail',
    0,
    "the highest score (0.000), below max-score's threshold 0.5",
  ]);
  expect(c.weighted__prompt_b!.evaluators.map((e) => `${e.name}:${e.type}:${e.weight}`)).toEqual([
    'contains-1:text_assertion:1',
    'javascript-2:code_assertion:1',
    'max-score-3:comparison:0',
  ]);
});

test('a run that would split the siblings, or repeat them unevenly, is refused before any call, naming the case', async () => {
  const root = tmpDir('re-compare-plan-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'evals/suite.yaml'), SUITE);
  const run = (over: object) =>
    runEvaluation(engineConfig(root, judge.url, { suites: ['evals/suite.yaml'], resultsFile: '', ...over }), {
      env: { PATH: process.env.PATH },
    });
  const sharded = await run({ shard: { index: 1, total: 2 } });
  expect(sharded.results.errors).toEqual([
    "evals/suite.yaml:4:5 case 'capital__prompt_short': compare-not-run: select-best compares this test's cases with each other, and a sharded run deals them to different jobs; run this suite without `shard` (in a job of its own)",
  ]);
  const repeated = await run({ repeat: 'auto' });
  expect(repeated.results.errors).toEqual([
    "evals/suite.yaml:4:5 case 'capital__prompt_short': compare-not-run: select-best compares a test's answers repeat by repeat, and with repeat: auto each case stops at its own number of answers; use a fixed repeat (2 to 20)",
  ]);
});

test("a sibling's definition is part of each compared case's hash", async () => {
  const answers = BOTH;
  pick = () => ({ reason: 'x', best: 0 });
  const a = cases(await gradeAnswers(SUITE, answers, judge.url));
  const b = cases(
    await gradeAnswers(SUITE.replace("'Long: {{ q }}'", "'Longer: {{ q }}'"), answers, judge.url),
  );
  expect(b.capital__prompt_short!.definition_hash).not.toBe(a.capital__prompt_short!.definition_hash);
  const again = cases(await gradeAnswers(SUITE, answers, judge.url));
  expect(again.capital__prompt_short!.definition_hash).toBe(a.capital__prompt_short!.definition_hash);
});

test("the judge stage compares the pull request's recorded answers with the base's assertions", async () => {
  const root = tmpDir('re-compare-judge-stage-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'evals/suite.yaml'), SUITE);
  pick = (user) => ({ reason: 'names France', best: /<<<ANSWER_0 [^\n]*\nParis, France/.test(user) ? 0 : 1 });
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, { suites: ['evals/suite.yaml'], resultsFile: '' }),
    {
      env: { PATH: process.env.PATH },
      recorded: {
        bundle: recordBundle({
          answers: [
            recordedAnswer('evals/suite.yaml', 'capital__prompt_short', 'Paris, France'),
            recordedAnswer('evals/suite.yaml', 'capital__prompt_long', 'Paris'),
          ],
        }),
        run: null,
      },
    },
  );
  expect(results.errors).toEqual([]);
  const c = cases(results);
  expect(c.capital__prompt_short!.answered_by).toBe('record');
  expect(shown(c.capital__prompt_short!)).toEqual([
    'pass',
    1,
    'picked as the answer that best meets: names the country too',
  ]);
  expect(shown(c.capital__prompt_long!)[0]).toBe('fail');
});

test('a sharded record stage is not refused: it compares nothing, the judge stage compares every shard', async () => {
  const root = tmpDir('re-compare-record-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'evals/suite.yaml'), SUITE);
  const config = engineConfig(root, null, { suites: ['evals/suite.yaml'], shard: { index: 2, total: 2 } });
  const ctx = createRunContext(config, { env: {} });
  const loaded = await loadInputs(config, ctx.ws);
  expect(planRun(loaded, config, ctx, { noJudge: true }).diagnostics).toEqual([]);
  expect(planRun(loaded, config, ctx).diagnostics.map((d) => d.rule)).toEqual([
    'judge-credentials',
    'compare-not-run',
  ]);
});

test('with repeat: N each repeat is compared apart, and each case is combined again from its compared answers', async () => {
  const root = tmpDir('re-compare-repeat-');
  mkdirSync(path.join(root, 'evals'));
  // The echo provider answers every repeat (the rendered prompt): the judge decides each round.
  writeFileSync(path.join(root, 'evals/suite.yaml'), SUITE.replace('capital of France', 'Paris?'));
  let round = 0;
  pick = () => ({ reason: 'round', best: ++round === 3 ? 0 : 1 });
  const before = selectBestCalls().length;
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, { suites: ['evals/suite.yaml'], resultsFile: '', repeat: 3 }),
    { env: { PATH: process.env.PATH } },
  );
  expect(results.errors).toEqual([]);
  expect(selectBestCalls().length - before).toBe(3);
  const c = cases(results);
  const long = c.capital__prompt_long!;
  const short = c.capital__prompt_short!;
  expect(long.answers!.map((a) => [a.verdict, a.score])).toEqual([
    ['pass', 1],
    ['pass', 1],
    ['fail', 0],
  ]);
  expect(short.answers!.map((a) => a.verdict)).toEqual(['fail', 'fail', 'pass']);
  expect([long.repeats, long.pass_rate, long.verdict, long.score]).toEqual([3, 0.6667, 'fail', 0.6667]);
  expect([short.pass_rate, short.verdict]).toEqual([0.3333, 'fail']);
  expect(long.answers![2]!.evaluators.at(-1)!.reasoning).toBe(
    'the judge picked capital__prompt_short over this answer for: names the country too',
  );
  // Each round's call is counted once, on the first sibling's answer of that round.
  expect(short.usage?.judge_calls).toBe(3);
  expect(results.usage.judge_calls).toBe(3);
});
