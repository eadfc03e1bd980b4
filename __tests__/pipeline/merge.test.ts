import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { splitList, type Config } from '../../src/config/config.js';
import { type Subject } from '../../src/checker/subject.js';
import { writeResultsFile } from '../../src/report/results-file.js';
import { type RunResults } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { comparable, startAnswerJudge, TWELVE_SUITES, twelveCaseRepo } from '../helpers/shards.js';

let judge: FakeOpenAI;
beforeAll(async () => {
  judge = await startAnswerJudge();
});
afterAll(async () => judge.close());

const SUBJECT: Subject = { kind: 'diff', title: 'x', body: '', files: [], diff: '+a\n', trimmed: [] };

const run = async (root: string, over: Partial<Config> = {}) =>
  (
    await runEvaluation(
      engineConfig(root, judge.url, { suites: splitList(TWELVE_SUITES), rubric: 'RUBRIC.md', ...over }),
      { env: {}, subject: () => Promise.resolve(SUBJECT) },
    )
  ).results;

/** Runs shard i/3 of the repo and writes its results to shards/<i>.json. */
async function shard(root: string, index: number, total = 3): Promise<RunResults> {
  const r = await run(root, { shard: { index, total } });
  writeResultsFile(path.join(root, `shards/${index}.json`), r);
  return r;
}

const merge = async (root: string, globs = ['shards/*.json']) =>
  (await runEvaluation(engineConfig(root, null, { merge: globs }), { env: {} })).results;

const edit = (file: string, fn: (r: RunResults) => void) => {
  const r = JSON.parse(readFileSync(file, 'utf8')) as RunResults;
  fn(r);
  writeFileSync(file, JSON.stringify(r));
};

describe('shards and merge (engine)', () => {
  let root: string;
  let unsharded: RunResults;
  let shards: RunResults[];
  beforeAll(async () => {
    root = twelveCaseRepo();
    unsharded = await run(root);
    shards = [];
    for (const i of [1, 2, 3]) shards.push(await shard(root, i));
  });

  test('each shard runs its round-robin share, the rubric in shard 1 only, and names the plan', () => {
    expect(unsharded.counts).toEqual({ pass: 8, borderline: 2, fail: 2, error: 0 });
    const plan = ['a-1', 'a-2', 'a-3', 'a-4', 'a-5', 'a-6', 'a-7', 'b-1', 'b-2', 'b-3', 'b-4', 'b-5'];
    shards.forEach((r, i) => {
      expect(r.shard).toEqual({
        index: i + 1,
        total: 3,
        plan_hash: shards[0]!.shard!.plan_hash,
        planned: 12,
      });
      // Every suite is listed (load order), holding only this shard's cases.
      expect(r.suites.map((s) => s.path)).toEqual(['evals/b.yaml', 'evals/a.yaml']);
      const ids = r.suites.flatMap((s) => s.cases.map((c) => c.id)).sort();
      expect(ids).toEqual(plan.filter((_, k) => k % 3 === i).sort());
    });
    expect(shards.map((r) => r.rubric?.verdict ?? null)).toEqual(['pass', null, null]);
    expect(unsharded.shard).toBeUndefined();
  });

  test('the merge equals the unsharded run field by field, timings aside', async () => {
    const merged = await merge(root);
    expect(merged.errors).toEqual([]);
    expect(comparable(merged)).toEqual(comparable(unsharded));
    expect(merged.shard).toBeUndefined();
    expect(merged.shards!.map((s) => [s.index, s.file, s.cases])).toEqual([
      [1, 'shards/1.json', 4],
      [2, 'shards/2.json', 4],
      [3, 'shards/3.json', 4],
    ]);
    expect(merged.shards!.reduce((n, s) => n + s.judge_calls, 0)).toBe(unsharded.usage.judge_calls);
  });

  test("a glob that also matches the merge's own results file (a re-run) merges the shards alone", async () => {
    const dir = twelveCaseRepo();
    for (const i of [1, 2, 3]) copyFileSync(path.join(root, `shards/${i}.json`), path.join(dir, `${i}.json`));
    writeResultsFile(path.join(dir, 'merged.json'), unsharded);
    const config = engineConfig(dir, null, { merge: ['*.json'], resultsFile: path.join(dir, 'merged.json') });
    const { results } = await runEvaluation(config, { env: {} });
    expect(results.errors).toEqual([]);
    expect(comparable(results)).toEqual(comparable(unsharded));
  });

  test('with judge samples too: the merge equals the unsharded run', async () => {
    const dir = twelveCaseRepo();
    const single = await run(dir, { judgeSamples: 3 });
    for (const index of [1, 2, 3]) {
      const r = await run(dir, { judgeSamples: 3, shard: { index, total: 3 } });
      writeResultsFile(path.join(dir, `shards/${index}.json`), r);
    }
    const merged = await merge(dir);
    expect(merged.errors).toEqual([]);
    expect(merged.usage.judge_calls).toBeGreaterThan(unsharded.usage.judge_calls);
    expect(comparable(merged)).toEqual(comparable(single));
  });

  test('a missing shard fails the run, naming it', async () => {
    const merged = await merge(root, ['shards/1.json', 'shards/2.json']);
    expect(merged.errors).toEqual(['shard 3/3 missing']);
    expect(merged.verdict).toBe('fail');
    expect(merged.suites).toEqual([]);
  });

  test('a shard given twice fails the run, naming both files', async () => {
    copyFileSync(path.join(root, 'shards/2.json'), path.join(root, 'shards/2-again.json'));
    const merged = await merge(root, ['shards/[123].json', 'shards/2-again.json']);
    expect(merged.errors).toEqual(['shard 2/3 given 2 times: shards/2.json, shards/2-again.json']);
    expect(merged.verdict).toBe('fail');
  });

  test('a corrupt shard file fails the run, naming the file, and its shard is missing', async () => {
    const dir = twelveCaseRepo();
    for (const i of [1, 2, 3]) copyFileSync(path.join(root, `shards/${i}.json`), path.join(dir, `${i}.json`));
    writeFileSync(path.join(dir, '3.json'), readFileSync(path.join(dir, '3.json'), 'utf8').slice(0, 300));
    const merged = await merge(dir, ['*.json']);
    expect(merged.errors).toEqual([
      expect.stringMatching(/^3\.json: unreadable shard results file: /),
      'shard 3/3 missing',
    ]);
    expect(merged.verdict).toBe('fail');
  });

  test('a file that is not a shard, or not a results file, is named with the reason', async () => {
    const dir = twelveCaseRepo();
    copyFileSync(path.join(root, 'shards/1.json'), path.join(dir, '1.json'));
    writeResultsFile(path.join(dir, 'whole.json'), unsharded);
    writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ version: 1, verdict: 'pass' }));
    const merged = await merge(dir, ['*.json']);
    expect(merged.errors).toEqual([
      expect.stringMatching(/^other\.json: not a rubric-eval results file \(suites: /),
      "whole.json: has no `shard` block: not a shard's results file (write it with `shard: i/n`)",
      'shard 2/3 missing',
      'shard 3/3 missing',
    ]);
  });

  test('a shard from a changed suite (another plan hash) fails the run, naming the shards', async () => {
    const dir = twelveCaseRepo();
    for (const i of [1, 2]) await shard(dir, i);
    const suite = path.join(dir, 'evals/a.yaml');
    writeFileSync(suite, readFileSync(suite, 'utf8').replace('Answers a-7', 'Answers a-7 well'));
    await shard(dir, 3);
    const merged = await merge(dir);
    expect(merged.errors).toHaveLength(1);
    expect(merged.errors[0]).toMatch(
      /^plan hash mismatch: shard 1\/3 \(shards\/1\.json\), shard 2\/3 \(shards\/2\.json\) planned [0-9a-f]{16}; shard 3\/3 \(shards\/3\.json\) planned [0-9a-f]{16}: the suites, targets or prompt files changed between the shard jobs/,
    );
    expect(merged.verdict).toBe('fail');
  });

  test('shards that disagree on their number fail the run', async () => {
    const dir = twelveCaseRepo();
    await shard(dir, 1, 2);
    await shard(dir, 2, 3);
    const merged = await merge(dir);
    expect(merged.errors).toEqual([
      'shard files disagree on the number of shards: shard 1/2 (shards/1.json), shard 2/3 (shards/2.json)',
    ]);
  });

  describe('cases that do not add up to the plan', () => {
    let dir: string;
    beforeEach(() => {
      dir = twelveCaseRepo();
      for (const i of [1, 2, 3])
        copyFileSync(path.join(root, `shards/${i}.json`), path.join(dir, `${i}.json`));
    });

    test('a shard missing a case without saying it was cancelled', async () => {
      edit(path.join(dir, '2.json'), (r) => r.suites[1]!.cases.pop());
      const merged = await merge(dir, ['*.json']);
      expect(merged.errors).toEqual(['shard 2/3 (2.json) holds 3 cases; its share of the 12 planned is 4']);
      expect(merged.verdict).toBe('fail');
    });

    test('a case swapped for another one', async () => {
      edit(path.join(dir, '2.json'), (r) => (r.suites[1]!.cases[0]!.id = 'a-1'));
      const merged = await merge(dir, ['*.json']);
      expect(merged.errors).toEqual([
        'case evals/a.yaml#a-1 is in both shard 1/3 and shard 2/3',
        expect.stringMatching(/^the shards' cases do not add up to their plan/),
      ]);
    });

    test('a cancelled shard makes a partial run that fails', async () => {
      edit(path.join(dir, '3.json'), (r) => {
        r.suites[1]!.cases.pop();
        r.partial = true;
      });
      const merged = await merge(dir, ['*.json']);
      expect(merged.errors).toEqual([]);
      expect(merged.partial).toBe(true);
      expect(merged.verdict).toBe('fail');
      expect(merged.suites.flatMap((s) => s.cases)).toHaveLength(11);
      // What finished keeps the suites' order.
      for (const s of merged.suites) {
        const lines = s.cases.map((c) => c.line!);
        expect(lines).toEqual([...lines].sort((a, b) => a - b));
      }
    });
  });

  test('an invalid suite fails every shard the same way, and the merge once', async () => {
    const dir = twelveCaseRepo();
    writeFileSync(path.join(dir, 'evals/a.yaml'), 'evalcases:\n  - id: x\n    rubrics: 3\n');
    const results = [await shard(dir, 1), await shard(dir, 2), await shard(dir, 3)];
    expect(results[0]!.errors.length).toBeGreaterThan(0);
    for (const r of results) {
      expect(r.errors).toEqual(results[0]!.errors);
      expect(r.shard!.plan_hash).toBe(results[0]!.shard!.plan_hash);
    }
    const merged = await merge(dir);
    expect(merged.errors).toEqual(results[0]!.errors);
    expect(merged.verdict).toBe('fail');
    // Like the unsharded run stopped by the same input: nothing executed, so no judge stats.
    expect(results[0]!.judge_stats).toBeUndefined();
    expect(merged.judge_stats).toBeUndefined();
  });

  test('globs that match nothing', async () => {
    const merged = await merge(twelveCaseRepo(), ['nowhere/*.json']);
    expect(merged.errors).toEqual([
      expect.stringMatching(/^merge: no files match 'nowhere\/\*\.json' in /),
      'merge: no shard results files to merge',
    ]);
    expect(merged.verdict).toBe('fail');
  });
});
