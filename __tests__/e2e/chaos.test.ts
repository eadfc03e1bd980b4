import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';

const N = 300;

function chaosRepo(): string {
  const root = tmpDir('re-chaos-');
  writeFileSync(
    path.join(root, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: mock\n    response: "The answer."\n',
  );
  const lines = ['evalcases:'];
  for (let i = 0; i < N; i++)
    lines.push(
      `  - id: c${i}`,
      `    input: question ${i}`,
      '    rubrics:',
      '      - Answers the question',
      '      - id: tone',
      '        expected_outcome: Polite',
      '        required: false',
    );
  writeFileSync(path.join(root, 'suite.yaml'), lines.join('\n') + '\n');
  return root;
}

let judge: FakeOpenAI;
const inputs = (extra: Record<string, string> = {}) => ({
  suites: 'suite.yaml',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-chaos-000000',
  'github-token': 'ghs_chaos_0000',
  concurrency: '16',
  ...extra,
});
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

/**
 * 300 cases against a judge that misbehaves on purpose (seeded): 20% 500s, 10% 429 with
 * retry-after, 5% malformed JSON, 5% a missing id, 2% hangs past the timeout, 1% dropped
 * connections. The default retry and repair limits must absorb it.
 */
test('fault injection: every case reported once, <= 1% errors, errors never pass, verdict and exit code follow', async () => {
  judge = await startOpenAIServer({ chaos: { seed: 20261122, retryAfterSeconds: 0.2 }, keepRequests: false });
  github = await startGitHubServer({
    failures: [{ method: 'POST', path: /\/issues\/7\/comments$/, status: 502, times: 2 }],
  });
  const workspace = chaosRepo();
  const run = await runAction({
    workspace,
    inputs: inputs({ 'judge-timeout': '1', 'cache-dir': '' }),
    event: PR_EVENT,
    apiUrl: github.url,
    timeoutMs: 90_000,
  });
  const results = JSON.parse(
    readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
  ) as RunResults;
  const cases = results.suites[0]!.cases;
  // Every loaded case exactly once.
  expect(cases.map((c) => c.id).sort()).toEqual(Array.from({ length: N }, (_, i) => `c${i}`).sort());
  // The retries absorbed the mix.
  const errored = cases.filter((c) => c.verdict === 'error');
  expect(errored.length).toBeLessThanOrEqual(N / 100);
  // No case with an unresolved judge error counts as pass or borderline.
  for (const c of cases) {
    if (c.evaluators.some((e) => e.verdict === 'error')) expect(c.verdict).toBe('error');
  }
  // Verdict and exit code follow from the results.
  const expected = errored.length > 0 || cases.some((c) => c.verdict === 'fail') ? 'fail' : 'pass';
  expect(results.verdict).toBe(expected);
  expect(run.code).toBe(expected === 'fail' ? 1 : 0);
  expect(run.outputs.verdict).toBe(expected);
  // No unhandled rejection or uncaught exception.
  expect(run.stderr).toBe('');
  expect(run.stdout).not.toMatch(/UnhandledPromiseRejection|uncaught/i);
  // The comment was retried past two 502s and posted; the summary was written.
  expect(github.state.requests.filter((q) => q.method === 'POST').length).toBe(3);
  expect(github.state.comments).toHaveLength(1);
  expect(run.summary).toContain(`**${N} cases:**`);
  // Figures for the closing note.
  const statuses = judge.state.statusCounts;
  expect(results.judge_stats!.retries).toBeGreaterThan(0);
  expect(results.judge_stats!.repairs).toBeGreaterThan(0);
  console.log(`chaos engine stats: ${JSON.stringify(results.judge_stats)}`);
  console.log(
    `chaos: ${N} cases, ${Object.values(statuses).reduce((a, b) => a + b, 0)} judge responses (${JSON.stringify(statuses)}), ` +
      `${results.usage.judge_calls} successful-or-invalid answers counted as calls, errors ${errored.length}, wall ${(run.durationMs / 1000).toFixed(1)} s`,
  );
}, 120_000);

test('a 403 on the comment: a warning, the results kept, the exit code from the verdict', async () => {
  judge = await startOpenAIServer({ keepRequests: false });
  github = await startGitHubServer({
    failures: [{ method: 'POST', path: /\/issues\/7\/comments$/, status: 403, times: 99 }],
  });
  const workspace = chaosRepo();
  const run = await runAction({
    workspace,
    inputs: inputs(),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('::warning::GitHub refused the PR comment (HTTP 403');
  expect(
    (JSON.parse(readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8')) as RunResults).counts
      .pass,
  ).toBe(N);
});
