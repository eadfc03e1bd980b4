import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runLlmJudge } from '../../src/evaluators/llm-judge.js';
import { runRubricScore } from '../../src/evaluators/rubric-score.js';
import { ctx, makeJudge } from '../helpers/judge.js';

let server: FakeOpenAI;
afterEach(() => server.close());

test('a judge that never answers validly: an llm-rubric and an llm_judge are the same error, with the calls they cost', async () => {
  // Every answer is out of schema: asked once, then repaired twice, then given up.
  server = await startOpenAIServer({ respond: () => ({ nonsense: true }) });
  const judge = makeJudge(server.url);
  const rubric = await runRubricScore(
    { name: 'tone', weight: 2, rubricScore: { rubric: 'Is polite', threshold: null } },
    ctx(),
    judge,
    null,
  );
  expect(rubric).toMatchObject({
    name: 'tone',
    type: 'llm_judge',
    weight: 2,
    score: 0,
    verdict: 'error',
    gating_violations: [],
  });
  expect(rubric.error).toMatch(/\S/);
  expect(rubric.usage!.judge_calls).toBe(3);
  const freeform = await runLlmJudge({ name: 'tone', weight: 2, rubrics: null, prompt: null }, ctx(), judge);
  expect(Object.keys(freeform).sort()).toEqual(Object.keys(rubric).sort());
  expect(freeform).toMatchObject({ score: 0, verdict: 'error', gating_violations: [] });
  expect(freeform.usage!.judge_calls).toBe(3);
  expect(server.state.requests).toHaveLength(6);
});
