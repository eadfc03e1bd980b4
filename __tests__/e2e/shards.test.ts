import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { type ActionRun, runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { corpusTest } from '../helpers/paths.js';
import { agentvCorpusCopy } from '../helpers/corpus-copy.js';
import { comparable, startAnswerJudge, TWELVE_SUITES, twelveCaseRepo } from '../helpers/shards.js';

let judge: FakeOpenAI;
const servers: FakeGitHub[] = [];
beforeEach(async () => {
  judge = await startAnswerJudge();
});
afterEach(async () => {
  await judge.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const github = async () => {
  const s = await startGitHubServer({
    pullRequest: {
      number: 7,
      title: 'Add search',
      body: 'Implements the search endpoint.',
      diff: PR_DIFF,
      files: [{ filename: 'src/search.ts', status: 'added', additions: 3, deletions: 0 }],
    },
  });
  servers.push(s);
  return s;
};

const readResults = (file: string): RunResults => JSON.parse(readFileSync(file, 'utf8'));

/**
 * The same inputs run once as one job, and as three shard jobs started together plus a merge
 * job, each against its own fake GitHub; returns both results and what each side posted.
 */
async function unshardedVsSharded(workspace: string, inputs: Record<string, string>) {
  const base = {
    'judge-base-url': judge.url,
    'judge-api-key': 'sk-shards-judge-000-0000',
    'github-token': 'ghs_shards_token_000',
    'cache-dir': '',
    concurrency: '4',
    ...inputs,
  };
  const action = (api: FakeGitHub, more: Record<string, string>) =>
    runAction({ workspace, inputs: { ...base, ...more }, event: PR_EVENT, apiUrl: api.url });
  const one = await github();
  // Separate judge caches: the shards must call the judge as the single run did.
  const single = await action(one, { 'results-file': 'single.json', 'cache-dir': '.cache-single' });
  const many = await github();
  const shards = await Promise.all(
    [1, 2, 3].map((i) =>
      action(many, { shard: `${i}/3`, 'results-file': `shards/${i}.json`, 'cache-dir': '.cache-shards' }),
    ),
  );
  const commentsAfterShards = many.state.comments.length;
  const merge = await runAction({
    workspace,
    inputs: { merge: 'shards/*.json', 'github-token': base['github-token'] },
    event: PR_EVENT,
    apiUrl: many.url,
  });
  return {
    single,
    shards,
    merge,
    commentsAfterShards,
    singleComments: one.state.comments,
    mergeComments: many.state.comments,
    singleResults: readResults(path.join(workspace, 'single.json')),
    shardResults: [1, 2, 3].map((i) => readResults(path.join(workspace, `shards/${i}.json`))),
    mergedResults: readResults(path.join(workspace, 'rubric-eval-results.json')),
  };
}

function expectSameRun(r: Awaited<ReturnType<typeof unshardedVsSharded>>) {
  for (const s of r.shards) {
    expect(s.stderr).toBe('');
    expect(s.code).toBe(0); // the merge decides the check
    expect(s.outputs['comment-url']).toBe('');
  }
  expect(r.commentsAfterShards).toBe(0);
  expect(r.mergeComments).toHaveLength(1);
  expect(r.singleComments).toHaveLength(1);
  expect(r.merge.stderr).toBe('');
  expect(comparable(r.mergedResults)).toEqual(comparable(r.singleResults));
  expect(r.mergedResults.shards!.map((s) => s.index)).toEqual([1, 2, 3]);
  const outputs = (a: ActionRun) => ({ ...a.outputs, 'results-file': '', 'comment-url': '' });
  expect(outputs(r.merge)).toEqual(outputs(r.single));
  expect(r.merge.code).toBe(r.single.code);
  // The comment says the same: its verdict line and the case tables.
  const head = (body: string) => body.split('\n').slice(0, 3).join('\n');
  expect(head(r.mergeComments[0]!.body)).toBe(head(r.singleComments[0]!.body));
}

test('a 12-case suite and a markdown rubric: 3 shards + merge equal one run, and only the merge comments', async () => {
  const workspace = twelveCaseRepo();
  const r = await unshardedVsSharded(workspace, { suites: TWELVE_SUITES, rubric: 'RUBRIC.md' });
  expectSameRun(r);
  expect(r.singleResults.counts).toEqual({ pass: 8, borderline: 2, fail: 2, error: 0 });
  expect(r.shardResults.map((s) => s.suites.flatMap((x) => x.cases).length)).toEqual([4, 4, 4]);
  expect(r.shardResults.map((s) => s.rubric !== null)).toEqual([true, false, false]);
  r.shards.forEach((s, i) =>
    expect(s.summary).toMatch(new RegExp(`^> \\*\\*Shard ${i + 1}/3\\*\\*: 4 of the 12 planned cases\\.`)),
  );
  expect(r.merge.summary).not.toContain('Shard');
  expect(r.single.code).toBe(1);
  // Failed cases are annotated once, by the merge.
  for (const s of r.shards) expect(s.stdout).not.toContain('case failed');
  expect(r.merge.stdout).toContain(
    `::case 'a-3' failed (score 0.50): rubric › says-good "Says good" (required): judged says-good`,
  );
  expect(r.merge.stdout).toContain('::error::rubric-eval: fail');
  expect(r.mergeComments[0]!.body).toContain('`b-3`');
});

corpusTest('the corpus rubric suite: 3 shards + merge equal one run', async () => {
  const workspace = agentvCorpusCopy('re-shards-corpus-');
  const r = await unshardedVsSharded(workspace, {
    suites: 'rubric/evals/dataset.yaml',
    'answers-file': 'rubric/evals/dataset.baseline.jsonl',
  });
  expectSameRun(r);
  expect(r.singleResults.errors).toEqual([]);
  expect(r.singleResults.suites[0]!.cases.map((c) => c.id)).toEqual([
    'code-explanation-simple',
    'technical-writing-detailed',
    'code-quality-multi-eval',
    'summary-task',
    'summary-multi-criteria-score-ranges-proposed',
  ]);
  for (const c of r.mergedResults.suites[0]!.cases) expect(c.definition_hash).toMatch(/^[0-9a-f]{16}$/);
});

test('a merge with a shard missing fails, names it, and posts no passing comment', async () => {
  const workspace = twelveCaseRepo();
  const api = await github();
  const inputs = {
    suites: TWELVE_SUITES,
    'judge-base-url': judge.url,
    'judge-api-key': 'sk-shards-judge-000-0000',
    'cache-dir': '',
  };
  for (const i of [1, 3])
    await runAction({
      workspace,
      inputs: { ...inputs, shard: `${i}/3`, 'results-file': `shards/${i}.json` },
    });
  const merge = await runAction({
    workspace,
    inputs: { merge: 'shards/*.json', 'github-token': 'ghs_shards_token_000' },
    event: PR_EVENT,
    apiUrl: api.url,
  });
  expect(merge.code).toBe(1);
  expect(merge.outputs.verdict).toBe('fail');
  expect(merge.stdout).toContain(
    '::error::rubric-eval: the shards do not make one valid run (1 problem): shard 2/3 missing',
  );
  expect(readResults(path.join(workspace, 'rubric-eval-results.json')).errors).toEqual(['shard 2/3 missing']);
  expect(api.state.comments).toHaveLength(1);
  expect(api.state.comments[0]!.body).toContain('shard 2/3 missing');
  expect(api.state.comments[0]!.body).toContain('**fail**');
});

test.each(['0/3', '4/3', 'a/b', '3'])(
  'shard: %s fails at once, naming the input and the form',
  async (shard) => {
    const workspace = twelveCaseRepo();
    const run = await runAction({ workspace, inputs: { suites: TWELVE_SUITES, shard }, eventName: 'push' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`shard: must be i/n with 1 ≤ i ≤ n ≤ 256, e.g. 2/4 (got '${shard}')`);
    expect(judge.state.requests).toEqual([]);
  },
);

test('the CLI: run --shard i/n --out, then merge, equals one run and exits the same', async () => {
  const cwd = twelveCaseRepo();
  const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-000' };
  const common = ['evals/b.yaml', 'evals/a.yaml', '--judge-base-url', judge.url, '--no-cache'];
  const single = await runCli(['run', ...common, '--out', 'single.json'], { cwd, env });
  const shards = await Promise.all(
    [1, 2].map((i) => runCli(['run', ...common, '--shard', `${i}/2`, '--out', `s/${i}.json`], { cwd, env })),
  );
  expect(shards.map((s) => s.code)).toEqual([0, 0]);
  expect(shards[1]!.stderr).toContain(
    "shard 2/2: results in s/2.json; `rubric-eval merge` the shards' files",
  );
  const merge = await runCli(['merge', 's/*.json', '--out', 'merged.json', '--format', 'json'], { cwd });
  expect(merge.stderr).toBe('');
  expect(merge.code).toBe(single.code);
  expect(single.code).toBe(1);
  expect(comparable(readResults(path.join(cwd, 'merged.json')))).toEqual(
    comparable(readResults(path.join(cwd, 'single.json'))),
  );
  expect(JSON.parse(merge.stdout).shards).toHaveLength(2);

  const bad = await runCli(['run', ...common, '--shard', '3/2', '--out', 'x.json'], { cwd, env });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("shard: must be i/n with 1 ≤ i ≤ n ≤ 256, e.g. 2/4 (got '3/2')");
  const noOut = await runCli(['run', ...common, '--shard', '1/2'], { cwd, env });
  expect(noOut.code).toBe(2);
  expect(noOut.stderr).toContain('--shard needs --out <file>');
  const missing = await runCli(['merge', 's/1.json'], { cwd });
  expect(missing.code).toBe(2);
  expect(missing.stdout).toContain('shard 2/2 missing');
});
