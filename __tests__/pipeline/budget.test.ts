import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runEvaluation } from '../../src/pipeline/run.js';
import { SpendMeter } from '../../src/pipeline/budget.js';
import { DEFAULT_PRICES } from '../../src/judge/pricing.js';
import { isForkPullRequest } from '../../src/github/run-context.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(async () => judge.close());

test('the meter counts judge tokens at the table’s price and a target’s own cost, else its tokens', () => {
  const m = new SpendMeter(0.01, DEFAULT_PRICES);
  expect(m.allow()).toBe(true);
  m.addTarget({ costUsd: 0.004, promptTokens: 10, completionTokens: 10, model: 'gpt-4.1' });
  m.addTarget({ costUsd: null, promptTokens: 1000, completionTokens: 1000, model: 'gpt-4.1-mini' });
  m.addTarget({ costUsd: null, promptTokens: 1000, completionTokens: 1000 });
  expect(m.spent).toBeCloseTo(0.004 + (1000 * 0.4 + 1000 * 1.6) / 1e6, 9);
  m.add(null);
  m.add(Number.NaN);
  expect(m.allow()).toBe(true);
  m.add(0.004);
  expect(m.allow()).toBe(false);
});

test("a target's model with no known price counts at the table's dearest price, never as free", () => {
  const m = new SpendMeter(1, { cheap: { input: 0.1, output: 0.2 }, dear: { input: 3, output: 12 } });
  m.addTarget({ costUsd: null, promptTokens: 1000, completionTokens: 1000, model: 'my-own-app-model' });
  expect(m.spent).toBeCloseTo((1000 * 3 + 1000 * 12) / 1e6, 9);
});

test('under the cap every case is judged; at it the cases left are skipped and the run fails', async () => {
  const repo = makeFixtureRepo();
  const base = { suites: ['evals/*.yaml'], concurrency: 1 };
  const free = await runEvaluation(engineConfig(repo, judge.url, { ...base, budgetUsd: 5 }), { env: {} });
  expect(free.results.counts).toEqual({ pass: 2, borderline: 0, fail: 0, error: 0 });
  expect(free.results.budget).toEqual({ usd: 5, spent_usd: expect.any(Number), skipped: 0 });
  expect(free.results.budget!.spent_usd).toBeCloseTo(free.results.usage.cost_usd!, 6);

  const calls = judge.state.requests.length;
  const capped = await runEvaluation(engineConfig(repo, judge.url, { ...base, budgetUsd: 1e-6 }), {
    env: {},
  });
  // The first call is made (nothing was spent yet); none after it.
  expect(judge.state.requests.length - calls).toBe(1);
  expect(capped.results.counts).toEqual({ pass: 1, borderline: 0, fail: 0, error: 0, skipped: 1 });
  expect(capped.results.verdict).toBe('fail');
  expect(capped.results.budget!.skipped).toBe(1);
});

test('a fork: the pull request’s head repository differs from the base; a deleted fork counts', () => {
  const env = { GITHUB_EVENT_NAME: 'pull_request', GITHUB_REPOSITORY: 'octo/repo' };
  const pr = (head: unknown, base: unknown = { full_name: 'octo/repo' }) => ({
    pull_request: { head: { repo: head }, base: { repo: base } },
  });
  expect(isForkPullRequest(env, pr({ full_name: 'someone/repo' }))).toBe(true);
  expect(isForkPullRequest(env, pr({ full_name: 'Octo/Repo' }))).toBe(false);
  expect(isForkPullRequest(env, pr(null))).toBe(true);
  expect(isForkPullRequest(env, pr({ full_name: 'someone/repo' }, undefined))).toBe(true);
  // pull_request_target runs with the base's secrets: not this case.
  expect(
    isForkPullRequest({ ...env, GITHUB_EVENT_NAME: 'pull_request_target' }, pr({ full_name: 'x/y' })),
  ).toBe(false);
  expect(isForkPullRequest(env, {})).toBe(false);
});

test('a fork without a key: judged cases are skipped before any call; without the fork flag it is an input error', async () => {
  const repo = makeFixtureRepo();
  const noKey = engineConfig(repo, null, { suites: ['evals/*.yaml'] });
  const fork = await runEvaluation({ ...noKey, untrustedFork: true }, { env: {} });
  expect(fork.results.errors).toEqual([]);
  expect(fork.results.counts).toEqual({ pass: 0, borderline: 0, fail: 0, error: 0, skipped: 2 });
  expect(fork.results.suites[0]!.cases.map((c) => c.skipped)).toEqual([
    'no-judge-credential',
    'no-judge-credential',
  ]);
  const own = await runEvaluation(noKey, { env: {} });
  expect(own.results.errors[0]).toMatch(/judge-credentials|no judge credentials/);
});
