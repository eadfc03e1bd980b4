import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { splitList } from '../../src/config/config.js';
import { createRunContext } from '../../src/pipeline/context.js';
import { loadInputs } from '../../src/pipeline/load.js';
import { planProblems, planRun } from '../../src/pipeline/plan.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { TWELVE_SUITES, twelveCaseRepo } from '../helpers/shards.js';

async function plan(
  root: string,
  over: Parameters<typeof engineConfig>[2] = {},
  url: string | null = 'http://127.0.0.1:9/v1',
) {
  const config = engineConfig(root, url, { suites: ['evals/*.yaml'], ...over });
  const ctx = createRunContext(config, { env: {} });
  return planRun(await loadInputs(config, ctx.ws), config, ctx);
}

describe('plan stage', () => {
  test('every case in suite then position order, with its target, judge and definition hash', async () => {
    const p = await plan(makeFixtureRepo());
    expect(p.diagnostics).toEqual([]);
    expect(p.cases.map((c) => [c.suite.path, c.evalCase.id, c.suiteIndex, c.caseIndex])).toEqual([
      ['evals/qa.yaml', 'capital-of-france', 0, 0],
      ['evals/qa.yaml', 'explain-quicksort', 0, 1],
    ]);
    expect(p.cases.map((c) => c.target.runner.name)).toEqual(['default', 'default']);
    for (const c of p.cases) expect(c.definitionHash).toMatch(/^[0-9a-f]{16}$/);
    expect(p.cases[0]!.definitionHash).not.toBe(p.cases[1]!.definitionHash);
    expect(p.runners).toHaveLength(1);
    expect(p.defaultEndpoint).toMatchObject({ baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4.1-mini' });
  });

  test('an unknown target is an error at the case, and nothing is planned to run', async () => {
    const root = makeFixtureRepo();
    const p = await plan(root, { target: 'nope' });
    expect(p.cases).toEqual([]);
    expect(p.diagnostics).toEqual(
      expect.arrayContaining([expect.objectContaining({ rule: 'unknown-target', file: 'evals/qa.yaml' })]),
    );
    const { errors, warnings } = planProblems(p);
    expect(warnings).toEqual([]);
    expect(errors[0]).toMatch(/^evals\/qa\.yaml:\d+:\d+ .*unknown-target/);
  });

  test('no judge credentials when a judge is needed is an input error before any call', async () => {
    const p = await plan(makeFixtureRepo(), {}, null);
    expect(p.cases).toEqual([]);
    expect(p.diagnostics).toEqual([expect.objectContaining({ file: 'inputs', rule: 'judge-credentials' })]);
  });

  test('a suite with only code judges needs no judge', async () => {
    const root = makeFixtureRepo();
    writeFileSync(
      path.join(root, 'evals/qa.yaml'),
      'evalcases:\n  - id: capital-of-france\n    input: hi\n    expected_outcome: Paris\n    execution:\n      evaluators:\n        - name: ok\n          type: code_judge\n          script: node -e "1"\n',
    );
    const p = await plan(root, {}, null);
    expect(p.diagnostics).toEqual([]);
    expect(p.defaultEndpoint).toBeNull();
    expect(p.cases).toHaveLength(1);
  });
});

describe('plan stage, sharded', () => {
  test('cases in suite path then position order are dealt round-robin; the rubric goes to shard 1', async () => {
    const root = twelveCaseRepo();
    const plans = await Promise.all(
      [1, 2, 3].map((index) =>
        plan(root, { suites: splitList(TWELVE_SUITES), rubric: 'RUBRIC.md', shard: { index, total: 3 } }),
      ),
    );
    const order = ['a-1', 'a-2', 'a-3', 'a-4', 'a-5', 'a-6', 'a-7', 'b-1', 'b-2', 'b-3', 'b-4', 'b-5'];
    plans.forEach((p, i) => {
      expect(p.diagnostics).toEqual([]);
      expect(p.cases.map((c) => c.evalCase.id)).toEqual(order.filter((_, k) => k % 3 === i));
      // Load order is kept for the results (b.yaml was listed first).
      expect(p.suites.map((s) => s.path)).toEqual(['evals/b.yaml', 'evals/a.yaml']);
      expect(p.shard).toEqual({ index: i + 1, total: 3, plan_hash: plans[0]!.shard!.plan_hash, planned: 12 });
    });
    expect(plans.map((p) => p.rubric !== undefined)).toEqual([true, false, false]);
    const unsharded = await plan(root, { suites: splitList(TWELVE_SUITES) });
    expect(unsharded.shard).toBeNull();
    expect(unsharded.cases).toHaveLength(12);
  });
});
