import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runLlmJudge } from '../../src/evaluators/llm-judge.js';
import { SampleBook } from '../../src/evaluators/sample-book.js';
import { ctx, makeJudge, QUICKSORT_CHECKLIST } from '../helpers/judge.js';

/**
 * AgentV 5 reads a checklist judge's answer the promptfoo way when it has `pass` or `reason` (or
 * `checks` without `overall_reasoning`): its own `score` is the score, its `pass` the verdict
 * (AgentV 5 v5.3.1-next.1, packages/core/src/evaluation/graders/llm-grader.ts,
 * normalizePromptfooGradingResult; its tests in packages/core/test/evaluation/graders.test.ts).
 */
const checklist = QUICKSORT_CHECKLIST;
const agentv5 = { name: 'criteria', weight: 1, rubrics: checklist, prompt: null, statedScore: true as const };
const unflagged = { name: 'criteria', weight: 1, rubrics: checklist, prompt: null };

let server: FakeOpenAI;
afterEach(async () => server?.close());

const serve = async (answer: (n: number) => object) => {
  let n = 0;
  server = await startOpenAIServer({ respond: () => answer(n++) });
  return server;
};

/** AgentV 5's own test answer ("maps Promptfoo-style rubric checks into internal assertion entries"). */
const promptfooAnswer = {
  reason: 'The answer covers dividing but omits the partition.',
  pass: false,
  score: 0.45,
  checks: [
    { id: 'divide', text: 'Mentions divide-and-conquer', pass: true, score: 1, reason: 'It divides.' },
    { id: 'partition', pass: false, score: 0, reason: 'No partition.' },
    { id: 'complexity', passed: true, reason: 'O(n log n).' },
  ],
};

test('AgentV 5: a stated score beside the checks is the score (not their weighted 0.5), its pass the verdict', async () => {
  await serve(() => promptfooAnswer);
  const r = await runLlmJudge(agentv5, ctx(), makeJudge(server.url));
  expect(server.state.requests).toHaveLength(1);
  expect(r).toMatchObject({ mode: 'checklist', score: 0.45, verdict: 'fail', gating_violations: [] });
  // The checks stay the per-item results (promptfoo's `pass` / `passed` read as `satisfied`).
  expect(r.checks!.map((c) => [c.id, c.satisfied, c.reasoning])).toEqual([
    ['divide', true, 'It divides.'],
    ['partition', false, 'No partition.'],
    ['complexity', true, 'O(n log n).'],
  ]);
  expect(r.reasoning).toBe('The answer covers dividing but omits the partition.');
});

test('AgentV 5: a stated pass with a low score passes; the score is still the stated one', async () => {
  const answer = { ...promptfooAnswer, pass: true, score: 0.3 };
  await serve(() => answer);
  expect(await runLlmJudge(agentv5, ctx(), makeJudge(server.url))).toMatchObject({
    score: 0.3,
    verdict: 'pass',
  });
});

test('AgentV 5: checks with no stated score count once each; the verdict is every check satisfied', async () => {
  // AgentV 5's "derives Promptfoo-style aggregate score from checks when omitted": no
  // overall_reasoning, so promptfoo-shaped; 2 of 3 satisfied, weights aside.
  await serve(() => ({
    checks: [
      { id: 'divide', satisfied: true },
      { id: 'partition', satisfied: true },
      { id: 'complexity', satisfied: false },
    ],
  }));
  const r = await runLlmJudge(agentv5, ctx(), makeJudge(server.url));
  expect(r.score).toBeCloseTo(2 / 3);
  expect(r.verdict).toBe('fail');
});

test("AgentV 5's own rubric shape (checks and overall_reasoning, no pass or reason): the checks decide, a stray score aside", async () => {
  await serve(() => ({
    checks: [
      { id: 'divide', satisfied: true, reasoning: 'r' },
      { id: 'partition', satisfied: false, reasoning: 'r' },
      { id: 'complexity', satisfied: true, reasoning: 'r' },
    ],
    overall_reasoning: 'missing partition',
    score: 0.95,
  }));
  expect(await runLlmJudge(agentv5, ctx(), makeJudge(server.url))).toMatchObject({
    score: 0.5,
    verdict: 'fail',
    reasoning: 'missing partition',
  });
});

test('without the AgentV 5 rule (v2 and promptfoo-shaped suites) a stated score is ignored, as before', async () => {
  const answer = {
    reason: 'x',
    pass: true,
    score: 0.45,
    checks: [
      { id: 'divide', satisfied: true },
      { id: 'partition', satisfied: false },
      { id: 'complexity', satisfied: true },
    ],
  };
  await serve(() => answer);
  expect(await runLlmJudge(unflagged, ctx(), makeJudge(server.url))).toMatchObject({
    score: 0.5,
    verdict: 'fail',
  });
});

test('a required item not satisfied still fails the evaluator, whatever the judge stated', async () => {
  const answer = {
    pass: true,
    score: 0.9,
    checks: [
      { id: 'divide', pass: false },
      { id: 'partition', pass: true },
      { id: 'complexity', pass: true },
    ],
  };
  await serve(() => answer);
  const r = await runLlmJudge(agentv5, ctx(), makeJudge(server.url));
  expect(r).toMatchObject({ score: 0.9, verdict: 'fail' });
  expect(r.gating_violations).toEqual(['divide: required item not satisfied']);
});

test('a stated score out of 0..1 is re-asked, never clamped', async () => {
  await serve((n) => ({ ...promptfooAnswer, score: n === 0 ? 7 : 0.7 }));
  const r = await runLlmJudge(agentv5, ctx(), makeJudge(server.url));
  expect(server.state.requests).toHaveLength(2);
  const repair = server.state.requests[1]!.body.messages.at(-1).content as string;
  expect(repair).toContain('score must be between 0 and 1');
  expect(r).toMatchObject({ score: 0.7, verdict: 'fail' });
  expect(r.usage).toMatchObject({ judge_calls: 2 });
});

test('judge samples: the lower median of the stated scores, the majority pass, the samples kept', async () => {
  const stated = [
    { score: 0.9, pass: true },
    { score: 0.4, pass: false },
    { score: 0.8, pass: true },
  ];
  await serve((n) => ({ ...promptfooAnswer, ...stated[n % 3]! }));
  const book = new SampleBook(3);
  const r = await runLlmJudge(agentv5, ctx(), makeJudge(server.url), {}, { book, path: 'e/0' });
  expect(server.state.requests).toHaveLength(3);
  expect(r).toMatchObject({ score: 0.8, verdict: 'pass', samples: 3 });
  expect(r.sample_scores).toEqual([0.9, 0.4, 0.8]);
});
