import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { startParisJudge } from '../helpers/paris-judge.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { makeFixtureRepo, PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { validateJunit } from '../helpers/junit-xml.js';

/**
 * Reports and gates where teams look (README "JUnit report", "Pass-rate gate", "Spend cap",
 * "Pull requests from forks"), through dist/index.js and dist/cli.js as the runner and a user run them.
 */

let judge: FakeOpenAI;
let github: FakeGitHub;

beforeEach(async () => {
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Add search', body: 'Implements search.', diff: PR_DIFF, files: [] },
  });
});
afterEach(async () => {
  await judge?.close();
  await github.close();
});

const inputs = (extra: Record<string, string> = {}) => ({
  suites: 'evals/*.yaml',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-e2e-judge-key-000111',
  'github-token': 'ghs_e2e_token_000111',
  concurrency: '1',
  'cache-dir': '',
  baseline: 'off',
  ...extra,
});

const resultsOf = (workspace: string): RunResults =>
  JSON.parse(readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8')) as RunResults;

/** What changes from run to run (durations, times, the history block) made stable for a snapshot. */
const stable = (text: string) =>
  text
    .replace(/\d+\.\d s\b/g, 'N.N s')
    .replace(/<!-- rubric-eval-history:[^>]*-->/, '<!-- rubric-eval-history:… -->')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z?/g, 'TIME')
    .replace(/[\d,]+ prompt \+ [\d,]+ completion tokens/g, 'N prompt + N completion tokens')
    .replace(/≈ \$[\d.]+/g, '≈ $N');

const FAILING = { answers: { 'capital-of-france': 'It is Lyon.' } };
const WHY = 'names-paris "Says Paris" (required): does not name Paris';

test('junit-file and the why-lists: every report names the failed check by its text, then the reason', async () => {
  judge = await startParisJudge();
  const workspace = makeFixtureRepo(FAILING);
  const run = await runAction({
    workspace,
    inputs: inputs({ rubric: 'RUBRIC.md', 'junit-file': 'reports/junit.xml' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(1);
  const xml = readFileSync(path.join(workspace, 'reports/junit.xml'), 'utf8');
  const { root, totals, cases } = validateJunit(xml);
  // Two cases, then the rubric's two gates, two must-haves and one nice-to-have.
  expect(totals).toEqual({ tests: 7, passed: 6, failures: 1, errors: 0, skipped: 0 });
  expect(root.children.map((s) => s.attributes.name)).toEqual(['evals/qa.yaml', 'RUBRIC.md']);
  const failing = cases.find((c) => c.attributes.name === 'capital-of-france')!;
  expect(failing.attributes.classname).toBe('evals/qa.yaml');
  expect(failing.children[0]!.attributes.message).toBe(`rubric › ${WHY}`);
  expect(xml).not.toContain('sk-e2e-judge-key-000111');

  const comment = github.state.comments[0]!.body;
  expect(comment).toContain(`- rubric › ${WHY}`);
  expect(run.summary).toContain(`- rubric › ${WHY}`);
  expect(run.stdout).toContain(
    `::error title=rubric-eval%3A case failed,file=evals/qa.yaml,line=3::case 'capital-of-france' failed (score 0.50): rubric › ${WHY}`,
  );
  expect(stable(comment)).toMatchSnapshot('comment');
});

test('min-pass-rate: at the rate a failing case does not fail the check; below it the check names the suite and both rates', async () => {
  judge = await startParisJudge();
  const workspace = makeFixtureRepo(FAILING);
  const met = await runAction({
    workspace,
    inputs: inputs({ 'min-pass-rate': '50%' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(met.code).toBe(0);
  expect(met.outputs.verdict).toBe('pass');
  expect(resultsOf(workspace).pass_rates).toEqual([
    { suite: null, passed: 1, total: 2, rate: 0.5, min: 0.5, met: true },
    { suite: 'evals/qa.yaml', passed: 1, total: 2, rate: 0.5, min: 0.5, met: true },
  ]);
  const passing = github.state.comments[0]!.body;
  expect(passing).toContain('## ✅ rubric-eval: **pass**');
  expect(passing).toContain('- ✅ overall: pass rate 50.0% (1/2) meets min 50.0%');
  // The failing case is still reported as failing, with its why.
  expect(passing).toContain(`- rubric › ${WHY}`);

  const below = await runAction({
    workspace,
    inputs: inputs({ 'min-pass-rate': '0.9' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(below.code).toBe(1);
  // Workflow commands escape `%` as `%25`.
  expect(below.stdout.replace(/%25/g, '%')).toMatch(
    /::error::rubric-eval: fail \(score [\d.]+\): overall: pass rate 50\.0% \(1\/2\) below min 90\.0%, suite evals\/qa\.yaml: pass rate 50\.0% \(1\/2\) below min 90\.0%/,
  );
  expect(github.state.comments[0]!.body).toContain(
    '- ❌ suite evals/qa.yaml: pass rate 50.0% (1/2) below min 90.0%',
  );

  // The suite's own key, without the input.
  const suiteFile = path.join(workspace, 'evals/qa.yaml');
  writeFileSync(suiteFile, `min_pass_rate: 0.5\n${readFileSync(suiteFile, 'utf8')}`);
  const own = await runAction({ workspace, inputs: inputs(), event: PR_EVENT, apiUrl: github.url });
  expect(own.code).toBe(0);
  expect(resultsOf(workspace).pass_rates).toEqual([
    { suite: 'evals/qa.yaml', passed: 1, total: 2, rate: 0.5, min: 0.5, met: true },
  ]);
  expect(stable(github.state.comments[0]!.body)).toMatchSnapshot('comment with a pass-rate gate');
});

test('budget-usd: once the estimated spend reaches the cap no call starts; the rest are skipped and the check fails', async () => {
  judge = await startParisJudge();
  const workspace = makeFixtureRepo();
  // One judge call of the fixture costs about $0.0001 at gpt-4.1-mini's price: the cap stops after it.
  const run = await runAction({
    workspace,
    inputs: inputs({ 'budget-usd': '0.00001', 'junit-file': 'junit.xml' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.code).toBe(1);
  expect(judge.state.requests).toHaveLength(1);
  const r = resultsOf(workspace);
  expect(r.verdict).toBe('fail');
  expect(r.counts).toEqual({ pass: 1, borderline: 0, fail: 0, error: 0, skipped: 1 });
  expect(r.budget!.usd).toBe(0.00001);
  expect(r.budget!.skipped).toBe(1);
  expect(r.budget!.spent_usd).toBeGreaterThan(0.00001);
  const skipped = r.suites[0]!.cases.find((c) => c.verdict === 'skipped')!;
  expect(skipped).toMatchObject({ skipped: 'budget', score: 0, evaluators: [] });
  const comment = github.state.comments[0]!.body;
  expect(comment).toContain('**2 cases:** 1 pass · 0 borderline · 0 fail · 1 skipped');
  expect(comment).toMatch(/- 💲 spent ≈ \$0\.000\d of budget-usd \$0\.00001 · 1 skipped/);
  // In the comment `$` is escaped (GitHub would read `$…$` as math).
  expect(comment).toMatch(
    /- ⏭️ 1 case skipped, not judged: the spend cap budget-usd \\\$0\.00001 was reached \(spent ≈ \\\$0\.000\d\)/,
  );
  expect(run.stdout).toMatch(/::error::rubric-eval: fail \(score [\d.]+\): 1 skipped, not judged/);
  // The skipped case fails the check, so JUnit shows it failed, never a green `<skipped>`.
  const junit = validateJunit(readFileSync(path.join(workspace, 'junit.xml'), 'utf8'));
  expect(junit.totals).toMatchObject({ passed: 1, failures: 1, skipped: 0 });
  expect(junit.cases.find((c) => c.children[0]?.name === 'failure')!.children[0]!.attributes.message).toMatch(
    /^skipped, not judged \(budget\): the spend cap/,
  );

  // Cached judgements cost nothing: a fresh checkout, so the cap stops the run again.
  const fresh = makeFixtureRepo();
  const never = await runAction({
    workspace: fresh,
    inputs: inputs({ 'budget-usd': '0.00001', 'fail-on': 'never', 'junit-file': 'junit.xml' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(never.code).toBe(0);
  expect(never.outputs.verdict).toBe('fail');
  // Under `fail-on: never` the skip fails nothing: then, and only then, it is `<skipped>`.
  expect(validateJunit(readFileSync(path.join(fresh, 'junit.xml'), 'utf8')).totals).toMatchObject({
    failures: 0,
    skipped: 1,
  });

  // A cap that cannot be estimated is an input error before any call.
  const calls = judge.state.requests.length;
  const unpriced = await runAction({
    workspace,
    inputs: inputs({ 'budget-usd': '1', 'judge-model': 'my-own-model' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(unpriced.code).toBe(1);
  expect(unpriced.stdout).toContain("budget-usd: the judge model 'my-own-model' has no known price");
  expect(judge.state.requests).toHaveLength(calls);
});

const FORK_EVENT = {
  ...PR_EVENT,
  pull_request: {
    ...PR_EVENT.pull_request,
    head: { sha: 'abc1234def', repo: { full_name: 'contributor/repo' } },
    base: { sha: 'base000', ref: 'main', repo: { full_name: 'octo/repo' } },
  },
};

test('a fork without a judge key: cases skipped with one line naming the trusted stage; never a pass', async () => {
  judge = await startParisJudge();
  const workspace = makeFixtureRepo();
  // The workflow passes `judge-api-key: ${{ secrets.… }}`, which a fork's run receives empty.
  const fork = await runAction({
    workspace,
    inputs: inputs({ 'judge-api-key': '', 'junit-file': 'junit.xml' }),
    event: FORK_EVENT,
    apiUrl: github.url,
  });
  expect(judge.state.requests).toHaveLength(0);
  expect(fork.code).toBe(1);
  const warnings = fork.stdout
    .split('\n')
    .filter((l) => l.startsWith('::warning') || l.startsWith('::error'));
  expect(warnings).toEqual([
    expect.stringMatching(
      /^::warning::2 cases skipped, not judged: a pull request from a fork runs without the judge's credential; judge them in the trusted stage: `stage: record` on pull_request, `stage: judge` on workflow_run/,
    ),
    '::error::rubric-eval: fail (score 0.00): 2 skipped, not judged',
  ]);
  expect(resultsOf(workspace).counts).toEqual({ pass: 0, borderline: 0, fail: 0, error: 0, skipped: 2 });
  // Skipped for the fork fails the check: `<failure>`, never a green `<skipped>`.
  expect(validateJunit(readFileSync(path.join(workspace, 'junit.xml'), 'utf8')).totals).toMatchObject({
    skipped: 0,
    failures: 2,
    errors: 0,
  });
  expect(stable(github.state.comments[0]!.body)).toMatchSnapshot('fork comment');

  const never = await runAction({
    workspace,
    inputs: inputs({ 'judge-api-key': '', 'fail-on': 'never' }),
    event: FORK_EVENT,
    apiUrl: github.url,
  });
  expect(never.code).toBe(0);

  // The same inputs on a branch of the repository itself are not a fork's run: the judge is called.
  await runAction({
    workspace,
    inputs: inputs({ 'judge-api-key': '' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(judge.state.requests.length).toBeGreaterThan(0);
  expect(resultsOf(workspace).counts.skipped).toBeUndefined();
});

test('a fork whose judge credential is refused (HTTP 403): skipped, not a wall of errors', async () => {
  judge = await startOpenAIServer({ respond: () => ({ status: 403 }) });
  const workspace = makeFixtureRepo();
  const fork = await runAction({ workspace, inputs: inputs(), event: FORK_EVENT, apiUrl: github.url });
  expect(fork.code).toBe(1);
  expect(resultsOf(workspace).counts).toEqual({ pass: 0, borderline: 0, fail: 0, error: 0, skipped: 2 });
  expect(fork.stdout).not.toContain('case errored');
  expect(
    fork.stdout.match(/^::warning::2 cases skipped, not judged: a pull request from a fork/gm),
  ).toHaveLength(1);
});

/** A suite of `n` cases answered from a file; the ids in `failing` answer Lyon. */
function manyCases(n: number, failing: string[]): string {
  const root = makeFixtureRepo();
  const ids = Array.from({ length: n }, (_, i) => `q-${String(i).padStart(3, '0')}`);
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  writeFileSync(
    path.join(root, 'evals/qa.yaml'),
    `evalcases:\n${ids
      .map(
        (id) =>
          `  - id: ${id}\n    expected_outcome: Names Paris\n    input: What is the capital of France?\n    rubrics:\n      - id: names-paris\n        expected_outcome: Says Paris\n        required: true\n`,
      )
      .join('')}`,
  );
  writeFileSync(
    path.join(root, 'answers.jsonl'),
    ids
      .map((id) =>
        JSON.stringify({ eval_id: id, candidate_answer: failing.includes(id) ? 'Lyon.' : 'Paris.' }),
      )
      .join('\n'),
  );
  return root;
}

test('the terminal: failures first, passes folded per suite, --verbose lists all; --junit writes the report', async () => {
  judge = await startParisJudge();
  const repo = manyCases(30, ['q-007', 'q-021']);
  const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-test-000000' };
  const args = [
    'run',
    'evals/qa.yaml',
    '--answers',
    'answers.jsonl',
    '--judge-base-url',
    judge.url,
    '--no-cache',
  ];
  const r = await runCli([...args, '--junit', 'out/junit.xml'], { cwd: repo, env });
  expect(r.code).toBe(1);
  expect(stable(r.stdout)).toMatchSnapshot('terminal');
  expect(r.stdout).toContain('  + 28 passing');
  expect(r.stdout).not.toContain('q-000');
  expect(r.stdout.indexOf('q-007')).toBeLessThan(r.stdout.indexOf('+ 28 passing'));
  expect(r.stdout).toContain(`rubric › ${WHY}`);
  const { totals } = validateJunit(readFileSync(path.join(repo, 'out/junit.xml'), 'utf8'));
  expect(totals).toEqual({ tests: 30, passed: 28, failures: 2, errors: 0, skipped: 0 });

  const verbose = await runCli([...args, '--verbose'], { cwd: repo, env });
  expect(verbose.stdout).not.toContain('passing');
  expect(verbose.stdout.match(/^ {2}pass /gm)).toHaveLength(28);

  const gated = await runCli([...args, '--min-pass-rate', '0.9'], { cwd: repo, env });
  expect(gated.code).toBe(0);
  expect(gated.stdout).toContain('overall: pass rate 93.3% (28/30) meets min 90.0%');
});
