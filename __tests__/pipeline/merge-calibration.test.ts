import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type Config } from '../../src/config/config.js';
import { checkFailures } from '../../src/config/fail-on.js';
import { type RunResults } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { writeResultsFile } from '../../src/report/results-file.js';
import { runCli } from '../../src/cli/run-cli.js';
import { type BelowFloor, type CalibrationResults } from '../../src/core/calibration-results.js';
import { mergeCalibration } from '../../src/pipeline/merge-calibration.js';
import { type ShardFile } from '../../src/pipeline/shard-file.js';
import { agreeingLabels, disagreeingLabels } from '../helpers/calibration-labels.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(() => judge.close());

const text = (lines: string[]) => `${lines.join('\n')}\n`;

/** The Lyon fixture (two cases, so one a shard) with both labels files beside the suite. */
function repo(): string {
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  writeFileSync(path.join(root, 'evals/disagree.jsonl'), text(disagreeingLabels()));
  writeFileSync(path.join(root, 'evals/agree.jsonl'), text(agreeingLabels()));
  return root;
}

/** Shard `index` of 2, run with its own calibration input, written to shard-<index>.json. */
async function shard(root: string, index: number, calibration: Config['calibration']) {
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, {
      suites: ['evals/*.yaml'],
      shard: { index, total: 2 },
      ...(calibration ? { calibration } : {}),
    }),
    { env: {} },
  );
  writeResultsFile(path.join(root, `shard-${index}.json`), results);
  return results;
}

const merge = async (root: string) =>
  (await runEvaluation(engineConfig(root, null, { merge: ['shard-*.json'] }), { env: {} })).results;

const disagree = { file: 'evals/disagree.jsonl', floor: 0.6 };

test("shards that measured the same: the merge reports it once, with every shard's judge calls", async () => {
  const root = repo();
  const one = await shard(root, 1, disagree);
  const two = await shard(root, 2, disagree);
  // No cache: each shard judged the 12 labelled answers itself.
  expect(one.calibration!.usage.judge_calls).toBe(12);
  expect(two.calibration!.usage.judge_calls).toBe(12);
  const merged = await merge(root);
  expect(merged.errors).toEqual([]);
  const { usage, ...rest } = merged.calibration!;
  const { usage: _one, ...shardOne } = one.calibration!;
  expect(rest).toEqual(shardOne);
  expect(usage.judge_calls).toBe(24);
  // Each shard's one case (2 calls: checklist, ranges) plus the calibration of both.
  expect(merged.usage.judge_calls).toBe(1 + 1 + 24);
  expect(merged.verdict).toBe('pass');
});

test('shards that measured different labels: the merge is an error naming them, never a pass', async () => {
  const root = repo();
  await shard(root, 1, disagree);
  await shard(root, 2, { file: 'evals/agree.jsonl', floor: 0.6 });
  const merged = await merge(root);
  expect(merged.errors).toEqual([
    'merge: the shards measured calibration differently: below_floor differs (shard 1/2 (shard-1.json): evals/qa.yaml › capital-of-france › rubric › names-paris; shard 2/2 (shard-2.json): none); file differs (shard 1/2 (shard-1.json): evals/disagree.jsonl; shard 2/2 (shard-2.json): evals/agree.jsonl): run every shard on the same commit with the same `calibration` and `min-judge-agreement`',
  ]);
  expect(merged.calibration).toBeUndefined();
  expect(merged.verdict).toBe('fail');
  expect(checkFailures(merged, 'fail')).toEqual(['invalid input (1 problem)']);
  expect(checkFailures(merged, 'calibration')).toEqual(['invalid input (1 problem)']);
});

test('the same labels under another floor differ too', async () => {
  const root = repo();
  await shard(root, 1, disagree);
  await shard(root, 2, { ...disagree, floor: null });
  const merged = await merge(root);
  expect(merged.errors).toHaveLength(1);
  expect(merged.errors[0]).toMatch(
    /^merge: the shards measured calibration differently: below_floor differs \(.*\); floor differs \(shard 1\/2 \(shard-1\.json\): 0\.6; shard 2\/2 \(shard-2\.json\): off\):/,
  );
  expect(merged.verdict).toBe('fail');
});

test('some shards measured calibration and others none: an error naming both sides', async () => {
  const root = repo();
  await shard(root, 1, null);
  await shard(root, 2, disagree);
  const merged = await merge(root);
  expect(merged.errors).toEqual([
    'merge: shard 1/2 (shard-1.json) measured no calibration, shard 2/2 (shard-2.json) did: run every shard with the same `calibration` input',
  ]);
  expect(merged.calibration).toBeUndefined();
  expect(merged.verdict).toBe('fail');
});

test("a shard file's own text in the error is one bounded line", async () => {
  const root = repo();
  await shard(root, 1, disagree);
  await shard(root, 2, disagree);
  const file = path.join(root, 'shard-2.json');
  const r = JSON.parse(readFileSync(file, 'utf8')) as RunResults;
  r.calibration!.source = `${'x'.repeat(500)}\n::error::forged`;
  writeFileSync(file, JSON.stringify(r));
  const merged = await merge(root);
  expect(merged.errors).toHaveLength(1);
  expect(merged.errors[0]).not.toContain('\n');
  expect(merged.errors[0]).not.toContain('x'.repeat(80));
  expect(merged.errors[0]).toContain(
    'source differs (shard 1/2 (shard-1.json): working tree; shard 2/2 (shard-2.json): xxx',
  );
  expect(merged.verdict).toBe('fail');
});

// Hostile review r4, H5: parallel shards judge the labels each on their own (the cache is saved
// at job end), so one transient error or a flipped verdict moves a figure, not the gate.
test("shards whose figures differ but not what gates: the merge reports shard 1's figures and says so", async () => {
  const root = repo();
  const one = await shard(root, 1, disagree);
  await shard(root, 2, disagree);
  const f = path.join(root, 'shard-2.json');
  const two = JSON.parse(readFileSync(f, 'utf8')) as RunResults;
  two.calibration!.errors.push({
    line: 3,
    suite: 'evals/qa.yaml',
    id: 'capital-of-france',
    error: 'judge: HTTP 503',
  });
  two.calibration!.overall.kappa = 0.3;
  two.calibration!.below_floor[0]!.kappa = -0.05;
  writeFileSync(f, JSON.stringify(two));
  const merged = await merge(root);
  expect(merged.errors).toEqual([]);
  const note =
    "the shards judged the labels apart and their below_floor, errors, overall differ (judge noise or a failed call), not which checks gate: the figures are shard 1/2 (shard-1.json)'s";
  expect(merged.calibration).toMatchObject({ errors: [], below_floor: one.calibration!.below_floor, note });
  expect(merged.calibration!.overall.kappa).toBe(one.calibration!.overall.kappa);
  expect(merged.warnings).toContain(`merge: calibration: ${note}`);
  expect(merged.verdict).toBe('pass');
  expect(checkFailures(merged, 'calibration')).toEqual([
    '1 check below min-judge-agreement 0.6 (names-paris κ 0.00)',
  ]);
});

test('shards whose checks below the floor differ: an error naming that field, never a pass', async () => {
  const root = repo();
  await shard(root, 1, disagree);
  await shard(root, 2, disagree);
  const f = path.join(root, 'shard-2.json');
  const two = JSON.parse(readFileSync(f, 'utf8')) as RunResults;
  two.calibration!.below_floor = [];
  writeFileSync(f, JSON.stringify(two));
  const merged = await merge(root);
  expect(merged.errors).toEqual([
    'merge: the shards measured calibration differently: below_floor differs (shard 1/2 (shard-1.json): evals/qa.yaml › capital-of-france › rubric › names-paris; shard 2/2 (shard-2.json): none): run every shard on the same commit with the same `calibration` and `min-judge-agreement`',
  ]);
  expect(merged.verdict).toBe('fail');
});

describe('what decides the gate is compared whole, and a shard file cannot print a workflow command', () => {
  const calib = { file: 'evals/disagree.jsonl', floor: 0.6 };
  async function both(): Promise<[ShardFile, ShardFile, string]> {
    const root = repo();
    await shard(root, 1, calib);
    await shard(root, 2, calib);
    const read = (i: number): ShardFile => ({
      file: `shard-${i}.json`,
      results: JSON.parse(readFileSync(path.join(root, `shard-${i}.json`), 'utf8')) as ShardFile['results'],
    });
    return [read(1), read(2), root];
  }
  const below = (check: string, id = 'capital-of-france'): BelowFloor => ({
    suite: 'evals/qa.yaml',
    id,
    check,
    evaluator: ['rubric'],
    n: 12,
    kappa: 0,
    reason: 'κ 0.00 is below 0.6',
  });
  const set = (f: ShardFile, list: BelowFloor[]) =>
    ((f.results.calibration as CalibrationResults).below_floor = list);

  test('checks below the floor that differ past the fifth, or past 120 characters of their name, are a difference', async () => {
    const [one, two] = await both();
    const common = ['a1', 'a2', 'a3', 'a4', 'a5'].map((c) => below(c));
    set(one, [...common, below('z-one')]);
    set(two, [...common, below('z-two')]);
    expect(mergeCalibration([one, two]).errors[0]).toMatch(/below_floor differs/);
    const long = 'a-case-id-that-is-long-as-generated-ids-from-csv-rows-often-are-'.repeat(2);
    set(one, [below('names-paris', long)]);
    set(two, [below('concise', long)]);
    expect(mergeCalibration([one, two]).errors[0]).toMatch(/below_floor differs/);
  });

  test("`rubric-eval merge` prints a shard's warnings and unknown calibration keys without a line a runner obeys", async () => {
    const [, , root] = await both();
    const f = path.join(root, 'shard-2.json');
    const two = JSON.parse(readFileSync(f, 'utf8')) as RunResults & { calibration: Record<string, unknown> };
    two.warnings = ['ok\n::error title=rubric-eval::all checks passed ##[error]too'];
    two.calibration['x\n::error title=rubric-eval::all checks passed'] = 1;
    writeFileSync(f, JSON.stringify(two));
    let printed = '';
    for (const format of ['table', 'json', 'markdown'])
      await runCli({
        argv: ['merge', 'shard-*.json', '--format', format],
        env: {},
        cwd: root,
        stdout: { write: (s: string) => (printed += s) },
        stderr: { write: (s: string) => (printed += s) },
      });
    const lines = printed.split('\n');
    expect(lines.filter((l) => l.trimStart().startsWith('::'))).toEqual([]);
    expect(lines.filter((l) => l.includes('##['))).toEqual([]);
    expect(printed).toContain('all checks passed');
  });
});
