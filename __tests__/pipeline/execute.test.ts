import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type Subject } from '../../src/checker/subject.js';
import { createRunContext } from '../../src/pipeline/context.js';
import { executePlan, type Progress } from '../../src/pipeline/execute.js';
import { loadInputs } from '../../src/pipeline/load.js';
import { planRun } from '../../src/pipeline/plan.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo, PR_DIFF } from '../helpers/fixture-repo.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startOpenAIServer();
});
afterEach(async () => judge.close());

const SUBJECT: Subject = {
  kind: 'pull_request',
  title: 'Add search',
  body: '',
  files: [],
  diff: PR_DIFF,
  trimmed: [],
};

async function setUp(signal?: AbortSignal) {
  const config = engineConfig(makeFixtureRepo(), judge.url, {
    suites: ['evals/*.yaml'],
    rubric: 'RUBRIC.md',
  });
  const ctx = createRunContext(config, { env: {}, signal });
  const plan = planRun(await loadInputs(config, ctx.ws), config, ctx);
  expect(plan.diagnostics).toEqual([]);
  const progress: Progress[] = [];
  const deps = {
    ...ctx,
    cwd: ctx.ws.root,
    concurrency: 2,
    subject: () => Promise.resolve(SUBJECT),
    history: [],
    progress: (p: Progress) => progress.push(p),
  };
  return { plan, deps, ctx, progress };
}

describe('execute stage', () => {
  test('answers and judges every planned case in plan order, and runs the rubric alongside', async () => {
    const { plan, deps, ctx, progress } = await setUp();
    const out = await executePlan(plan, deps);
    expect(out.partial).toBe(false);
    expect(out.suites).toHaveLength(1);
    const cases = out.suites[0]!.cases;
    expect(cases.map((c) => [c.id, c.verdict, c.target])).toEqual([
      ['capital-of-france', 'pass', 'default'],
      ['explain-quicksort', 'pass', 'default'],
    ]);
    expect(cases.map((c) => c.definition_hash)).toEqual(plan.cases.map((c) => c.definitionHash));
    expect(cases[0]!.answer).toBe('Paris is the capital of France.');
    expect(out.rubric).toMatchObject({ verdict: 'pass', counts: { gates_passed: 2, gates_total: 2 } });
    expect(progress.map((p) => p.done).sort()).toEqual([1, 2]);
    // Two cases and one rubric checker: three judge calls through the run's pool.
    expect(ctx.judges.stats().judgeCalls).toBe(3);
    expect(judge.state.requests).toHaveLength(3);
  });

  test('a run cancelled before it starts finishes no case and says it is partial', async () => {
    const controller = new AbortController();
    controller.abort();
    const { plan, deps } = await setUp(controller.signal);
    const out = await executePlan(plan, deps);
    expect(out.partial).toBe(true);
    expect(out.suites[0]!.cases).toEqual([]);
  });
});
