import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type LabelLine, matchLabels } from '../../src/calibration/labels.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { type EvalSuite, type EvaluatorConfig } from '../../src/suite/types.js';
import { disagreeingLabels } from '../helpers/calibration-labels.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

// Hostile review r4, H3: rubric ids are unique within one rubrics list only, so two judges of one
// case can both have a `names-paris` (as every plain-string list has a `rubric-1`). A label, its
// calibration row and the advisory it causes must address one check of one evaluator.

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(() => judge.close());

/**
 * `capital-of-france` (answered "It is Lyon.") with the case's own rubric `names-paris`
 * (required) and a second judge `tone` inside a composite `style`, whose `names-paris` is not.
 */
const SUITE = `description: Two judges, one id
evalcases:
  - id: capital-of-france
    expected_outcome: Names Paris as the capital
    input: What is the capital of France?
    rubrics:
      - id: names-paris
        expected_outcome: Says Paris
        required: true
    evaluators:
      - name: style
        type: composite
        evaluators:
          - name: tone
            type: llm_judge
            rubrics:
              - id: names-paris
                expected_outcome: Mentions Paris in passing
                required: false
              - id: concise
                expected_outcome: One sentence
                required: false
        aggregator:
          type: weighted_average
`;

function repo(labels: string[]): string {
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  writeFileSync(path.join(root, 'evals/qa.yaml'), SUITE);
  writeFileSync(path.join(root, 'evals/labels.jsonl'), `${labels.join('\n')}\n`);
  return root;
}

const run = (root: string) =>
  runEvaluation(
    engineConfig(root, judge.url, {
      suites: ['evals/*.yaml'],
      calibration: { file: 'evals/labels.jsonl', floor: 0.6 },
    }),
    { env: {} },
  );

/** The disagreeing labels with `names-paris` written as `key`. */
const relabelled = (key: string) =>
  disagreeingLabels().map((l) => l.replace('"names-paris"', JSON.stringify(key)));

test('a label whose check id two evaluators of its case share is refused at its line, naming both and how to write it', async () => {
  const { results } = await run(repo(disagreeingLabels()));
  expect(results.errors[0]).toBe(
    "evals/labels.jsonl:1:1 ambiguous-check: 'names-paris' is a check of 2 evaluators of case 'capital-of-france' (rubric; style › tone): write the label's check as 'rubric/names-paris' or 'tone/names-paris'",
  );
  expect(results.errors).toHaveLength(12);
  // Invalid input (as any bad label line is): never a pass, nothing turned advisory on a guess.
  expect(results.verdict).toBe('fail');
  expect(results.calibration?.below_floor ?? []).toEqual([]);
});

test("the qualified label measures that evaluator's check only: its κ lifts it, the other judge's required item still gates", async () => {
  for (const key of ['tone/names-paris', 'style/tone/names-paris']) {
    const { results } = await run(repo(relabelled(key)));
    expect(results.errors).toEqual([]);
    const cal = results.calibration!;
    expect(cal.below_floor).toMatchObject([
      { check: 'names-paris', evaluator: ['style', 'tone'], qualified: 'tone/names-paris', n: 12 },
    ]);
    const c = results.suites[0]!.cases[0]!;
    expect(c.verdict).toBe('fail');
    expect(c.gating_violations).toEqual(['names-paris: required item not satisfied']);
    const [inline, style] = c.evaluators;
    expect(inline!.checks![0]!.advisory).toBeUndefined();
    expect(style!.children![0]!.checks!.find((x) => x.id === 'names-paris')!.advisory).toMatch(/^κ 0\.00/);
  }
});

test("the inline rubric's check, labelled qualified, is the one that turns advisory: the case passes on what remains", async () => {
  const { results } = await run(repo(relabelled('rubric/names-paris')));
  expect(results.errors).toEqual([]);
  expect(results.calibration!.below_floor).toMatchObject([
    { check: 'names-paris', evaluator: ['rubric'], qualified: 'rubric/names-paris' },
  ]);
  const c = results.suites[0]!.cases[0]!;
  expect(c.evaluators[0]!.checks![0]!.advisory).toMatch(/^κ 0\.00/);
  // The inline judge is left with no check that gates: no evidence. `style` decides: tone's
  // names-paris not met, concise met → 0.5.
  expect(c.evaluators[0]!.advisory).toMatch(/every check is advisory/);
  expect(c.score).toBeCloseTo(0.5, 12);
  expect(c.gating_violations).toEqual([]);
});

describe('matchLabels', () => {
  const judgeOf = (name: string, ids: string[]) =>
    ({
      type: 'llm_judge',
      name,
      weight: 1,
      rubrics: {
        mode: 'checklist',
        items: ids.map((id) => ({ id, outcome: id, weight: 1, required: true })),
      },
    }) as unknown as EvaluatorConfig;
  const suiteWith = (evaluators: EvaluatorConfig[]) =>
    [{ path: 'evals/s.yaml', cases: [{ id: 'c', evaluators }] }] as unknown as EvalSuite[];
  const line = (labels: Record<string, boolean>): LabelLine => ({
    suite: 'evals/s.yaml',
    id: 'c',
    answer: 'a',
    labels,
    rater: null,
    line: 7,
  });

  test('two judges of one name sharing an id: no label form can name one, so the error says to rename', () => {
    const { matched, diagnostics } = matchLabels(
      [line({ 'rubric-1': true })],
      suiteWith([judgeOf('llm_judge', ['rubric-1']), judgeOf('llm_judge', ['rubric-1', 'rubric-2'])]),
      'labels.jsonl',
    );
    expect(matched).toEqual([]);
    expect(diagnostics.map((d) => `${d.line} ${d.rule} ${d.message}`)).toEqual([
      "7 ambiguous-check 'rubric-1' is a check of 2 evaluators of case 'c' (llm_judge; llm_judge): give those evaluators distinct names, then label the check as '<evaluator>/<id>'",
    ]);
  });

  test('an id only one evaluator has: bare or qualified, the same check; labelling it twice on one line is refused', () => {
    const suites = suiteWith([judgeOf('tone', ['rubric-1']), judgeOf('safety', ['rubric-1', 'rubric-2'])]);
    const ok = matchLabels([line({ 'rubric-2': true }), line({ 'safety/rubric-2': false })], suites, 'l');
    expect(ok.diagnostics).toEqual([]);
    expect(
      ok.matched.map((m) => Object.values(m.targets).map((t) => [t.evaluator, t.check, t.qualified])),
    ).toEqual([[[['safety'], 'rubric-2', undefined]], [[['safety'], 'rubric-2', undefined]]]);
    const twice = matchLabels([line({ 'rubric-2': true, 'safety/rubric-2': true })], suites, 'l');
    expect(twice.diagnostics.map((d) => d.rule)).toEqual(['duplicate-check']);
  });
  const composite = (name: string, children: EvaluatorConfig[]) =>
    ({
      type: 'composite',
      name,
      weight: 1,
      children,
      aggregator: { type: 'weighted_average', weights: {} },
    }) as unknown as EvaluatorConfig;
  const targets = (r: ReturnType<typeof matchLabels>) =>
    r.matched.map((m) => Object.values(m.targets).map((t) => [t.evaluator.join('/'), t.check]));

  test("a key that is one check's id and another's qualified form is refused as ambiguous, never measured on either", () => {
    // `style` has an item whose id is literally `tone/formal`; `tone/formal` also names tone's `formal`.
    const suites = suiteWith([
      judgeOf('tone', ['formal']),
      judgeOf('safety', ['formal']),
      judgeOf('style', ['tone/formal']),
    ]);
    const r = matchLabels([line({ 'tone/formal': false })], suites, 'labels.jsonl');
    expect(r.matched).toEqual([]);
    expect(r.diagnostics.map((d) => d.rule)).toEqual(['ambiguous-check']);
  });

  test('a top-level judge whose name a composite child also has is labelled by its full path, the child by its own', () => {
    const suites = suiteWith([
      judgeOf('tone', ['formal']),
      composite('panel', [judgeOf('tone', ['formal'])]),
    ]);
    const r = ['tone/formal', 'panel/tone/formal'].map((k) =>
      matchLabels([line({ [k]: true })], suites, 'l'),
    );
    expect(targets(r[0]!)).toEqual([[['tone', 'formal']]]);
    expect(targets(r[1]!)).toEqual([[['panel/tone', 'formal']]]);
  });
});
