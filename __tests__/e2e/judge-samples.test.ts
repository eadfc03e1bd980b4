import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { startParisJudge } from '../helpers/paris-judge.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { makeFixtureRepo, PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';

let judge: FakeOpenAI | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  judge = github = undefined;
});

const evaluatorsOf = (r: RunResults) => r.suites.flatMap((s) => s.cases.flatMap((c) => c.evaluators));

test('CLI --judge-samples auto: samples where in doubt, votes in the report and the results; a bad value exits 2', async () => {
  judge = await startParisJudge();
  const repo = makeFixtureRepo({ answers: { 'capital-of-france': 'Lyon' } });
  const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-test-000000' };
  const base = [
    'run',
    'evals/*.yaml',
    '--judge-base-url',
    judge.url,
    '--no-cache',
    '--judge-samples',
    'auto',
  ];
  const table = await runCli(base, { cwd: repo, env });
  expect(table.code).toBe(1);
  // Failing on one required item is in doubt (flipping it would pass): a second sample agrees (a
  // checklist judge takes at most 2 by its case's doubt); the run's one leftover call (2 first
  // calls, 1 after) goes to it again, the likeliest wrong under the run's fit of the judge.
  expect(table.stdout).toContain(
    'rubric › names-paris "Says Paris" (required) [votes 0/3]: does not name Paris',
  );
  expect(table.stdout).toMatch(/ · \d+ extra judge samples? · /);

  const served = judge.state.requests.length;
  const json = await runCli([...base, '--format', 'json'], { cwd: repo, env });
  const r = JSON.parse(json.stdout) as RunResults;
  const samples = evaluatorsOf(r).reduce((n, e) => n + e.samples!, 0);
  expect(judge.state.requests.length - served).toBe(samples);
  expect(r.usage.judge_calls).toBe(samples);
  const paris = r.suites[0]!.cases.find((c) => c.id === 'capital-of-france')!;
  expect(paris.evaluators[0]!.checks!.find((k) => k.id === 'names-paris')).toMatchObject({ votes: '0/3' });

  const bad = await runCli(['run', 'evals/*.yaml', '--judge-samples', '0'], { cwd: repo, env });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("judge-samples: must be an integer from 1 to 9 or auto (got '0')");
});

test('action input judge-samples: every llm_judge sampled, the comment counts the extra samples; a bad value fails the step', async () => {
  judge = await startParisJudge();
  github = await startGitHubServer({
    pullRequest: {
      number: 7,
      title: 'Add search',
      body: 'Implements the search endpoint.',
      diff: PR_DIFF,
      files: [{ filename: 'src/search.ts', status: 'added', additions: 3, deletions: 0 }],
    },
  });
  const workspace = makeFixtureRepo();
  const inputs = (samples: string) => ({
    suites: 'evals/*.yaml',
    'judge-base-url': judge!.url,
    'judge-api-key': 'sk-e2e-judge-key-000111',
    'github-token': 'ghs_e2e_token_000111',
    'cache-dir': '',
    'judge-samples': samples,
  });
  const run = await runAction({ workspace, inputs: inputs('3'), event: PR_EVENT, apiUrl: github.url });
  expect(run.code).toBe(0);
  const results = JSON.parse(
    readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
  ) as RunResults;
  const evaluators = evaluatorsOf(results);
  expect(evaluators.map((e) => e.samples)).toEqual(evaluators.map(() => 3));
  expect(judge.state.requests).toHaveLength(3 * evaluators.length);
  expect(results.usage.judge_calls).toBe(3 * evaluators.length);
  expect(github.state.comments[0]!.body).toContain(`${2 * evaluators.length} extra judge samples`);
  expect(run.stdout).toMatch(new RegExp(`verdict: pass · .* · ${2 * evaluators.length} extra judge samples`));

  const bad = await runAction({ workspace, inputs: inputs('lots'), event: PR_EVENT, apiUrl: github.url });
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain("judge-samples: must be an integer from 1 to 9 or auto (got 'lots')");
  const written = JSON.parse(
    readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
  ) as RunResults;
  expect(written.verdict).toBe('fail');
});
