import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type LabelsReader } from '../../src/calibration/stage.js';
import { checkFailures } from '../../src/config/fail-on.js';
import { type Config } from '../../src/config/config.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { renderReport } from '../../src/report/comment-body.js';
import { writeResultsFile } from '../../src/report/results-file.js';
import { agreeingLabels, disagreeingLabels } from '../helpers/calibration-labels.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { recordBundle, recordedAnswer } from '../helpers/record-bundle.js';
import { startParisJudge } from '../helpers/paris-judge.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(() => judge.close());

const lyon = () => makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
const text = (lines: string[]) => `${lines.join('\n')}\n`;

function config(root: string, over: Partial<Config> = {}): Config {
  return engineConfig(root, judge.url, {
    suites: ['evals/*.yaml'],
    calibration: { file: 'evals/labels.jsonl', floor: 0.6 },
    ...over,
  });
}

const capital = (r: Awaited<ReturnType<typeof runEvaluation>>['results']) =>
  r.suites[0]!.cases.find((c) => c.id === 'capital-of-france')!;

test('a check the judge gets wrong against the labels is advisory: the case passes, the check says why', async () => {
  const root = lyon();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), text(disagreeingLabels()));
  const { results } = await runEvaluation(config(root), { env: {} });
  expect(results.errors).toEqual([]);
  const c = capital(results);
  expect(c.verdict).toBe('pass');
  expect(c.gating_violations).toEqual([]);
  const checks = c.evaluators[0]!.checks!;
  expect(checks.find((x) => x.id === 'names-paris')).toMatchObject({ satisfied: false });
  expect(checks.find((x) => x.id === 'names-paris')!.advisory).toMatch(
    /^κ 0\.00 \(95% -?\d\.\d\d\.\.\d\.\d\d\) over 12 labels is below min-judge-agreement 0\.6$/,
  );
  expect(checks.find((x) => x.id === 'concise')!.advisory).toBeUndefined();
  const cal = results.calibration!;
  expect(cal).toMatchObject({
    source: 'working tree',
    labels: 12,
    floor: 0.6,
    effect: 'advisory',
    after_merge: null,
  });
  expect(cal.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  expect(cal.overall.kappa).toBeCloseTo(1 / 3, 3);
  // The labelled answers' calls are counted with the run's.
  expect(results.usage.judge_calls).toBe(2 + 12);
  expect(results.verdict).toBe('pass');
  expect(checkFailures(results, 'fail')).toEqual([]);
  const comment = renderReport(results, { sticky: true });
  expect(comment).toContain('**judge agreement: κ 0.33 over 12 labels; 1 check advisory**');
  expect(comment).toContain(
    '`evals/qa.yaml › capital-of-france › names-paris` is advisory (shown, not gating): κ 0.00',
  );
});

test('fail-on: calibration: the same check fails the run instead, and the case keeps its verdict', async () => {
  const root = lyon();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), text(disagreeingLabels()));
  const { results } = await runEvaluation(config(root, { failOn: 'calibration' }), { env: {} });
  expect(capital(results).verdict).toBe('fail');
  expect(results.calibration!.effect).toBe('fails');
  expect(checkFailures(results, 'calibration')).toEqual([
    '1 failed',
    '1 check below min-judge-agreement 0.6 (names-paris κ 0.00)',
  ]);
});

test('no floor: measured and shown, nothing advisory', async () => {
  const root = lyon();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), text(disagreeingLabels()));
  const { results } = await runEvaluation(
    config(root, { calibration: { file: 'evals/labels.jsonl', floor: null } }),
    {
      env: {},
    },
  );
  expect(capital(results).verdict).toBe('fail');
  expect(results.calibration!.below_floor).toEqual([]);
  expect(renderReport(results)).toContain('**judge agreement: κ 0.33 over 12 labels**');
});

test("a pull request's labels never gate: the base's do, the PR's are shown as after merge", async () => {
  const root = lyon();
  const read: LabelsReader = () =>
    Promise.resolve({
      gating: { text: text(agreeingLabels()), from: 'base 1234567' },
      proposed: { text: text(disagreeingLabels()), from: 'pull request head' },
    });
  const { results } = await runEvaluation(config(root), { env: {}, calibrationLabels: read });
  expect(capital(results).verdict).toBe('fail');
  const cal = results.calibration!;
  expect(cal.source).toBe('base 1234567');
  expect(cal.below_floor).toEqual([]);
  expect(cal.rows.find((r) => r.check === 'names-paris')!.kappa).toBe(1);
  expect(cal.after_merge!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  const comment = renderReport(results);
  expect(comment).toContain(
    'κ after merge: 0.33 over 12 labels, 1 check below the floor (shown, never gating',
  );
  expect(comment).toContain('`evals/qa.yaml › capital-of-france › names-paris` κ 1.00 → κ after merge: 0.00');
});

test('labels absent at the base: nothing gates on them; invalid labels there are invalid input', async () => {
  const root = lyon();
  const absent: LabelsReader = () =>
    Promise.resolve({
      gating: { text: null, from: 'base 1234567' },
      proposed: { text: text(disagreeingLabels()), from: 'pull request head' },
    });
  const a = await runEvaluation(config(root), { env: {}, calibrationLabels: absent });
  expect(capital(a.results).verdict).toBe('fail');
  expect(a.results.calibration).toMatchObject({ labels: 0, source: 'base 1234567 (no labels file there)' });
  const invalid: LabelsReader = () =>
    Promise.resolve({ gating: { text: '{"suite": 1}\n', from: 'base 1234567' }, proposed: null });
  const b = await runEvaluation(config(root), { env: {}, calibrationLabels: invalid });
  expect(b.results.errors).toEqual(['evals/labels.jsonl:1:1 label: needs "suite" (the suite file\'s path)']);
  expect(b.results.verdict).toBe('fail');
  expect(judge.state.served).toBe(2 + 12);
});

test('shards apply the same advisory rule, and the merge carries calibration so fail-on: calibration still fails', async () => {
  const root = lyon();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), text(disagreeingLabels()));
  for (const index of [1, 2]) {
    const { results } = await runEvaluation(
      config(root, {
        failOn: 'calibration',
        cacheDir: '.cache',
        cacheMode: 'readwrite',
        shard: { index, total: 2 },
      }),
      { env: {} },
    );
    writeResultsFile(path.join(root, `shard-${index}.json`), results);
  }
  const { results } = await runEvaluation(
    engineConfig(root, null, { merge: ['shard-*.json'], failOn: 'calibration' }),
    {
      env: {},
    },
  );
  expect(results.errors).toEqual([]);
  expect(results.calibration!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  expect(checkFailures(results, 'calibration')).toContain(
    '1 check below min-judge-agreement 0.6 (names-paris κ 0.00)',
  );
});

test("the PR's invalid labels are shown after merge, inert, and never gate", async () => {
  const root = lyon();
  const read: LabelsReader = () =>
    Promise.resolve({
      gating: { text: text(agreeingLabels()), from: 'base 1234567' },
      proposed: {
        text: '{"suite": "evals/qa.yaml", "id": "@octocat [x](http://e.vil)", "answer": "a", "labels": {"concise": true}}\n',
        from: 'pull request head',
      },
    });
  const { results } = await runEvaluation(config(root), { env: {}, calibrationLabels: read });
  expect(results.errors).toEqual([]);
  expect(results.calibration!.after_merge).toBeNull();
  expect(results.calibration!.after_merge_error).toContain("has no case '@octocat [x](http://e.vil)'");
  const comment = renderReport(results);
  expect(comment).toContain("the pull request's labels cannot be used after merge");
  expect(comment).not.toContain('@octocat');
  expect(comment).not.toContain('[x](http');
});

/** What a pull request's run recorded: Lyon for the capital, a fair quicksort answer. */
const lyonRecorded = () =>
  recordBundle({
    answers: [
      recordedAnswer('evals/qa.yaml', 'capital-of-france', 'It is Lyon.'),
      recordedAnswer(
        'evals/qa.yaml',
        'explain-quicksort',
        'Quicksort picks a pivot, partitions and recurses.',
      ),
    ],
  });

test("the judge stage measures the labels of its own checkout, the base's: the same check turns advisory", async () => {
  // The base's mock target would answer Paris; the pull request's run recorded Lyon, and that is judged.
  const root = makeFixtureRepo();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), text(disagreeingLabels()));
  const { results } = await runEvaluation(config(root), {
    env: {},
    recorded: {
      bundle: lyonRecorded(),
      run: null,
    },
  });
  expect(results.errors).toEqual([]);
  expect(results.calibration).toMatchObject({
    source: "the base branch's checkout",
    labels: 12,
    effect: 'advisory',
    after_merge: null,
  });
  expect(results.calibration!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  const c = capital(results);
  expect(c.answer).toBe('It is Lyon.');
  expect(c.answered_by).toBe('record');
  expect(c.verdict).toBe('pass');
  expect(results.usage.judge_calls).toBe(2 + 12);
});

/** The judge stage on the Lyon recording, the base's labels agreeing, the head's file as given. */
async function judgeStageWithHead(head: string, changes: boolean) {
  const root = makeFixtureRepo();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), text(agreeingLabels()));
  const asked: string[][] = [];
  const run = await runEvaluation(config(root), {
    env: {},
    recorded: {
      bundle: lyonRecorded(),
      run: null,
      headFiles: (paths) => {
        asked.push(paths);
        return Promise.resolve(new Map(paths.map((p) => [p, head])));
      },
      changes: (file) => changes && file === 'evals/labels.jsonl',
    },
  });
  return { ...run, asked };
}

test("in the judge stage the head's labels, read as data, are shown after merge and never gate", async () => {
  // The head rewrites the labels to make names-paris advisory: shown, never gating.
  const { results, asked } = await judgeStageWithHead(text(disagreeingLabels()), true);
  expect(asked).toContainEqual(['evals/labels.jsonl']);
  const cal = results.calibration!;
  expect(cal.below_floor).toEqual([]);
  expect(cal.after_merge!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  const c = capital(results);
  expect(c.verdict).toBe('fail');
  expect(c.gating_violations.join(' ')).toContain('names-paris');
});

test("the judge stage spends nothing on a head's labels the PR does not change, or adds too many of", async () => {
  // Unchanged by the PR (the head is merely behind or ahead of the base): not read, not measured.
  const untouched = await judgeStageWithHead(text(disagreeingLabels()), false);
  expect(untouched.asked).toEqual([]);
  expect(untouched.results.calibration!.after_merge).toBeNull();
  const calls = untouched.results.usage.judge_calls;

  // 101 new label lines: shown as refused, none of them judged with the workflow's key.
  const many = Array.from({ length: 101 }, (_, i) =>
    JSON.stringify({
      suite: 'evals/qa.yaml',
      id: 'capital-of-france',
      answer: `Paris ${i}`,
      labels: { 'names-paris': false },
    }),
  );
  const flooded = await judgeStageWithHead(text([...agreeingLabels(), ...many]), true);
  expect(flooded.results.calibration!.after_merge).toBeNull();
  expect(flooded.results.calibration!.after_merge_error).toBe(
    "the pull request adds 101 label lines; the judge stage measures at most 100 of a pull request's new labels (they are judged with the workflow's key): κ after merge not measured",
  );
  expect(flooded.results.usage.judge_calls).toBe(calls);
  expect(capital(flooded.results).verdict).toBe('fail');
});
