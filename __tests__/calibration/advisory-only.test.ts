import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { applyAdvisory } from '../../src/calibration/advisory.js';
import { checkFailures } from '../../src/config/fail-on.js';
import { type BelowFloor } from '../../src/core/calibration-results.js';
import { type CaseResult, type EvaluatorResult } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { type EvalSuite, type EvaluatorConfig } from '../../src/suite/types.js';
import { advisory, check } from '../helpers/advisory.js';
import { disagreeingLabels } from '../helpers/calibration-labels.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

const judgeConfig = (name: string) =>
  ({ type: 'llm_judge', name, weight: 1, rubrics: null, prompt: null }) as unknown as EvaluatorConfig;
const codeConfig = (name: string, weight = 1) =>
  ({ type: 'code_judge', name, weight }) as unknown as EvaluatorConfig;

function rescore(evaluators: EvaluatorResult[], configs: EvaluatorConfig[], below: BelowFloor[]) {
  const c: CaseResult = {
    id: 'c',
    verdict: 'pass',
    score: 1,
    gating_violations: [],
    evaluators,
    target: null,
    answer: null,
    duration_ms: 1,
  };
  const loaded = [{ path: 's.yaml', cases: [{ id: 'c', evaluators: configs }] }] as unknown as EvalSuite[];
  return applyAdvisory([{ path: 's.yaml', description: null, cases: [c] }], loaded, below, () => ({
    setting: 3,
    minRate: 0.8,
  }))[0]!.cases[0]!;
}

test('a composite whose only weighted child turns advisory holds no evidence: the case is not failed on the advisory check', () => {
  // weighted_average { facts: 1, shape: 0 } (or an AgentV 5 assert-set whose `shape` has weight 0):
  // the composite is decided by `facts` alone. The judge said names-paris is met: the case passed.
  const facts: EvaluatorResult = {
    name: 'facts',
    type: 'llm_judge',
    weight: 1,
    mode: 'checklist',
    score: 1,
    verdict: 'pass',
    checks: [check('names-paris', true, true)],
    gating_violations: [],
  };
  const shape: EvaluatorResult = {
    name: 'shape',
    type: 'code_judge',
    weight: 1,
    score: 0.2,
    verdict: 'fail',
    gating_violations: [],
  };
  const combo: EvaluatorResult = {
    name: 'combo',
    type: 'composite',
    weight: 1,
    mode: 'aggregate',
    score: 1,
    verdict: 'pass',
    children: [facts, shape],
    gating_violations: [],
  };
  const config = {
    type: 'composite',
    name: 'combo',
    weight: 1,
    children: [judgeConfig('facts'), codeConfig('shape')],
    aggregator: { type: 'weighted_average', weights: { facts: 1, shape: 0 } },
  } as unknown as EvaluatorConfig;
  const c = rescore([combo], [config], [advisory(['combo', 'facts'])]);
  // Nothing that counts is left in `combo`: it is no evidence, like a composite whose every part is advisory.
  expect(c.verdict).not.toBe('fail');
});

// End to end: the fixture's `capital-of-france` judged only by its inline rubric (names-paris),
// answered "Paris is the capital of France." (the judge says met: the case passes without labels).
let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(() => judge.close());

test('with a pass-rate gate, a case only advisory checks judged is left out of the rate: the run does not fail on the advisory check', async () => {
  const root = makeFixtureRepo();
  writeFileSync(
    path.join(root, 'evals/qa.yaml'),
    `evalcases:
  - id: capital-of-france
    expected_outcome: Names Paris as the capital
    input: What is the capital of France?
    rubrics:
      - id: names-paris
        expected_outcome: Says Paris
        required: true
`,
  );
  const labels = disagreeingLabels().map((l) => {
    const o = JSON.parse(l);
    delete o.labels.concise;
    return JSON.stringify(o);
  });
  writeFileSync(path.join(root, 'evals/labels.jsonl'), `${labels.join('\n')}\n`);
  const cfg = (calibration: boolean) =>
    engineConfig(root, judge.url, {
      suites: ['evals/*.yaml'],
      minPassRate: 1,
      ...(calibration ? { calibration: { file: 'evals/labels.jsonl', floor: 0.6 } } : {}),
    });
  const without = (await runEvaluation(cfg(false), { env: {} })).results;
  expect(without.suites[0]!.cases[0]!.verdict).toBe('pass');
  expect(checkFailures(without, 'fail')).toEqual([]);
  const withLabels = (await runEvaluation(cfg(true), { env: {} })).results;
  expect(withLabels.calibration!.below_floor).toHaveLength(1);
  // The check is "shown, never gating": the run must not fail because it turned advisory.
  expect(checkFailures(withLabels, 'fail')).toEqual([]);
});
