import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type Config } from '../../src/config/config.js';
import { checkFailures } from '../../src/config/fail-on.js';
import { type EvaluatorResult, type RunResults } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { compositeSuite, disagreeingLabels } from '../helpers/calibration-labels.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

// The Paris judge fails `names-paris` on "It is Lyon." and meets `concise`; the labels put that
// judge at κ 0.00 on `names-paris` (12 labels), below the floor 0.6.
let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(() => judge.close());

/** The fixture repository with `capital-of-france` graded by composites (helpers/calibration-labels.ts). */
function repoWith(scripted: boolean): string {
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  writeFileSync(path.join(root, 'evals/qa.yaml'), compositeSuite(scripted));
  writeFileSync(path.join(root, 'evals/labels.jsonl'), `${disagreeingLabels().join('\n')}\n`);
  return root;
}

function run(root: string, over: Partial<Config> = {}) {
  return runEvaluation(
    engineConfig(root, judge.url, {
      suites: ['evals/*.yaml'],
      calibration: { file: 'evals/labels.jsonl', floor: 0.6 },
      ...over,
    }),
    { env: { PATH: process.env.PATH } },
  );
}

const theCase = (r: RunResults) => r.suites[0]!.cases[0]!;
const child = (e: EvaluatorResult, ...names: string[]): EvaluatorResult =>
  names.reduce((at, n) => at.children!.find((c) => c.name === n)!, e);

test('a labelled check inside nested composites turns advisory: every level is scored again by its own rule', async () => {
  const root = repoWith(false);
  const off = await run(root, { calibration: { file: 'evals/labels.jsonl', floor: null } });
  // Without the floor the check gates through both composites.
  expect(theCase(off.results)).toMatchObject({
    verdict: 'fail',
    gating_violations: ['combo › inner › facts › names-paris: required item not satisfied'],
  });
  expect(theCase(off.results).evaluators[0]!.score).toBeCloseTo((3 * 0.5 + 1) / 4, 12);

  const { results } = await run(root);
  expect(results.errors).toEqual([]);
  expect(results.calibration!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  const c = theCase(results);
  const combo = c.evaluators[0]!;
  const facts = child(combo, 'inner', 'facts');
  expect(facts.checks!.find((x) => x.id === 'names-paris')).toMatchObject({
    satisfied: false,
    advisory: expect.stringMatching(/^κ 0\.00 .* over 12 labels is below min-judge-agreement 0\.6$/),
  });
  expect(facts.checks!.find((x) => x.id === 'concise')!.advisory).toBeUndefined();
  // facts: only `concise` counts (met) → 1; inner (one child) → 1; combo (3 × 1 + 1 × 1) / 4 → 1.
  expect(facts).toMatchObject({ score: 1, verdict: 'pass', gating_violations: [] });
  expect(child(combo, 'inner')).toMatchObject({ score: 1, verdict: 'pass', gating_violations: [] });
  expect(combo).toMatchObject({ score: 1, verdict: 'pass', gating_violations: [] });
  expect(combo.reasoning).toBe('inner: 1.00 × 3, shape: 1.00 × 1');
  expect(c).toMatchObject({ verdict: 'pass', score: 1, gating_violations: [] });
  expect(results.verdict).toBe('pass');
  expect(checkFailures(results, 'fail')).toEqual([]);
});

test('fail-on: calibration: the composite keeps gating on the check, and the run fails for it', async () => {
  const root = repoWith(false);
  const { results } = await run(root, { failOn: 'calibration' });
  const c = theCase(results);
  expect(c.verdict).toBe('fail');
  expect(child(c.evaluators[0]!, 'inner', 'facts').checks!.every((x) => x.advisory === undefined)).toBe(true);
  expect(checkFailures(results, 'calibration')).toEqual([
    '1 failed',
    '1 check below min-judge-agreement 0.6 (names-paris κ 0.00)',
  ]);
});

test('a script aggregator is not asked again: its score stands, the gate is lifted, and a warning says so', async () => {
  const root = repoWith(true);
  const { results } = await run(root);
  expect(results.errors).toEqual([]);
  const combo = theCase(results).evaluators[0]!;
  expect(child(combo, 'facts')).toMatchObject({ score: 1, verdict: 'pass', gating_violations: [] });
  expect(combo).toMatchObject({ score: 0.9, verdict: 'pass', gating_violations: [] });
  expect(combo.warnings).toEqual([
    'aggregator code_judge not asked again: its score still counts the advisory names-paris',
  ]);
  expect(theCase(results).verdict).toBe('pass');
});

test('repeats: each answer is scored again without the advisory check, and the case decided again on its pass rate', async () => {
  // A model target (its answers may vary, so repeats are asked); it always names Lyon.
  const app = await startOpenAIServer({ respond: () => ({ content: 'It is Lyon.' }) });
  try {
    const root = makeFixtureRepo();
    writeFileSync(
      path.join(root, '.agentv/targets.yaml'),
      `targets:\n  - name: default\n    provider: openai\n    endpoint: ${app.url}\n    api_key: app-key-123456\n    model: app-model\n`,
    );
    writeFileSync(path.join(root, 'evals/labels.jsonl'), `${disagreeingLabels().join('\n')}\n`);
    const over = { repeat: 3, minCasePassRate: 0.3 } as const;
    const capital = (r: RunResults) => r.suites[0]!.cases.find((c) => c.id === 'capital-of-france')!;
    const off = await run(root, { ...over, calibration: { file: 'evals/labels.jsonl', floor: null } });
    // 0 of 3: a fixed repeat reads the observed rate, and no passing answer is a fail (the README's repeats).
    expect(capital(off.results)).toMatchObject({ repeats: 3, pass_rate: 0, verdict: 'fail' });
    expect(capital(off.results).answers!.every((a) => a.verdict === 'fail')).toBe(true);

    const { results } = await run(root, over);
    expect(results.errors).toEqual([]);
    const c = capital(results);
    // 3 of 3 answers pass: the observed rate 1 reaches 0.3 (as would the exact lower bound 0.368).
    expect(c).toMatchObject({ repeats: 3, pass_rate: 1, pass_rate_low: 0.3684, verdict: 'pass' });
    expect(c.answers!.map((a) => [a.repeat, a.verdict, a.gating_violations])).toEqual([
      [1, 'pass', []],
      [2, 'pass', []],
      [3, 'pass', []],
    ]);
    for (const a of c.answers!)
      expect(a.evaluators[0]!.checks!.find((x) => x.id === 'names-paris')!.advisory).toMatch(/^κ 0\.00 /);
    expect(c.gating_violations).toEqual([]);
  } finally {
    await app.close();
  }
});
