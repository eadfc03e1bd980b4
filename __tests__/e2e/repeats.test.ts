import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';
import { startParisJudge } from '../helpers/paris-judge.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';

let judge: FakeOpenAI | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  judge = github = undefined;
});

/** Each case's chance of a right answer: the app's own nondeterminism, by case id. */
const RATES: Record<string, number> = { always: 1, mostly: 0.95, coin: 0.5, rarely: 0.2, never: 0 };

/**
 * A repository whose CLI target answers right (names Paris) with a fixed probability per case,
 * from a seeded PRNG keyed by the case id and the repeat index it is given as {REPEAT}: the same
 * repeat of the same case always gives the same answer, different repeats are independent draws.
 */
function flakyRepo(): string {
  const root = tmpDir('re-repeats-');
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  writeFileSync(
    path.join(root, 'app.mjs'),
    `const rates = ${JSON.stringify(RATES)};
const [id, repeat] = process.argv.slice(2);
let h = 2166136261;
for (const ch of \`seed-7:\${id}:\${repeat}\`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
let t = (h + 0x6d2b79f5) >>> 0;
t = Math.imul(t ^ (t >>> 15), t | 1);
t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
const draw = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
console.log(draw < rates[id] ? 'Paris is the capital of France.' : 'Lyon, I think.');
`,
  );
  writeFileSync(
    path.join(root, 'targets.yaml'),
    `targets:\n  - name: app\n    provider: cli\n    command_template: node app.mjs {EVAL_ID} {REPEAT}\n`,
  );
  writeFileSync(
    path.join(root, 'evals/flaky.yaml'),
    `description: The same question, answered by an app that is right at a fixed rate per case
execution:
  target: app
evalcases:
${Object.keys(RATES)
  .map(
    (id) => `  - id: ${id}
    expected_outcome: Names Paris as the capital
    input: What is the capital of France?
    rubrics:
      - id: names-paris
        expected_outcome: Says Paris
        required: true
`,
  )
  .join('\n')}`,
  );
  return root;
}

const casesOf = (r: RunResults) => Object.fromEntries(r.suites[0]!.cases.map((c) => [c.id, c]));
const readResults = (ws: string) =>
  JSON.parse(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8')) as RunResults;

test('repeat: auto through dist/index.js classifies each rate as README "Repeats" promises, with fewer answers than 20 on the clear cases', async () => {
  judge = await startParisJudge();
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Flaky app', body: '', diff: PR_DIFF, files: [] },
  });
  const workspace = flakyRepo();
  const inputs = (repeat: string, cache = '') => ({
    suites: 'evals/*.yaml',
    targets: 'targets.yaml',
    'judge-base-url': judge!.url,
    'judge-api-key': 'sk-e2e-judge-key-000111',
    'github-token': 'ghs_e2e_token_000111',
    'cache-dir': cache,
    baseline: 'off',
    repeat,
  });

  const auto = await runAction({
    workspace,
    inputs: inputs('auto'),
    event: PR_EVENT,
    apiUrl: github.url,
    timeoutMs: 180_000,
  });
  const a = casesOf(readResults(workspace));
  // Every answer is judged, a text already judged for the case is served from the judge's memory.
  const answersSpent = Object.values(a).reduce((n, c) => n + c.repeats!, 0);
  expect(judge.state.requests.length).toBeGreaterThan(0);
  expect(judge.state.requests.length).toBeLessThanOrEqual(answersSpent);
  for (const c of Object.values(a))
    for (const ans of c.answers!) expect(ans.evaluators[0]!.checks![0]!.id).toBe('names-paris');
  expect(a.always).toMatchObject({ verdict: 'pass', repeats: 14, pass_rate: 1 });
  expect(a.never).toMatchObject({ verdict: 'fail', pass_rate: 0 });
  expect(a.never!.repeats).toBeLessThanOrEqual(3);
  expect(a.rarely!.verdict).toBe('fail');
  expect(a.coin!.verdict).not.toBe('pass');
  expect(a.mostly!.verdict).not.toBe('fail');
  for (const c of Object.values(a)) {
    expect(c.answers).toHaveLength(c.repeats!);
    expect(c.pass_rate_low).toBeLessThanOrEqual(c.pass_rate!);
    expect(c.pass_rate_high).toBeGreaterThanOrEqual(c.pass_rate!);
    // Each answer is kept with its own verdict, score and text.
    for (const ans of c.answers!)
      expect(ans.answer).toBe(ans.verdict === 'pass' ? 'Paris is the capital of France.' : 'Lyon, I think.');
  }
  const results = readResults(workspace);
  expect(results.counts.inconclusive).toBe(
    Object.values(a).filter((c) => c.verdict === 'inconclusive').length,
  );
  // Under the default fail-on the failing cases fail the check.
  expect(auto.code).toBe(1);
  expect(auto.stdout).toContain(`repeats: ${answersSpent} answers for 5 cases`);

  // The comment: rates as `k/n` with the interval on hover, not-passing cases with each answer's verdict.
  const body = github.state.comments.at(-1)!.body;
  expect(body).toContain(
    `<abbr title="14 of 14 answers passed (rate 1.00); exact 90% interval 0.81–1.00">14/14</abbr>`,
  );
  const never = a.never!;
  expect(body).toContain(`>0/${never.repeats}</abbr> ${'✗'.repeat(never.repeats!)}`);
  const inconclusive = Object.values(a).filter((c) => c.verdict === 'inconclusive');
  if (inconclusive.length > 0) {
    // Shown first, before the failures.
    const first = body.indexOf(`\`${inconclusive[0]!.id}\``);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(body.indexOf('`never`'));
  }

  // Fixed 20 answers each: the clear cases cost more than under auto.
  const fixed = await runAction({
    workspace,
    inputs: inputs('20'),
    event: PR_EVENT,
    apiUrl: github.url,
    timeoutMs: 180_000,
  });
  expect(fixed.code).toBe(1);
  const f = casesOf(readResults(workspace));
  for (const c of Object.values(f)) expect(c.repeats).toBe(20);
  expect(f.always!.verdict).toBe('pass');
  expect(f.never!.verdict).toBe('fail');
  expect(f.coin!.verdict).not.toBe('pass');
  expect(f.mostly!.verdict).not.toBe('fail');
  for (const id of ['always', 'rarely', 'never']) expect(a[id]!.repeats).toBeLessThan(f[id]!.repeats!);
  // The same repeat of the same case gives the same answer: auto's answers are the first of fixed's.
  for (const [id, c] of Object.entries(a))
    expect(c.answers!.map((x) => x.verdict)).toEqual(
      f[id]!.answers!.slice(0, c.repeats).map((x) => x.verdict),
    );

  // Figures for BENCHMARKS.md (answers spent per case).
  const line = (r: Record<string, CaseResult>) =>
    Object.keys(RATES)
      .map((id) => `${id} ${r[id]!.repeats} ${r[id]!.verdict} ${r[id]!.pass_rate}`)
      .join(' | ');
  console.log(`auto: ${line(a)}\nfixed 20: ${line(f)}`);
}, 400_000);

test('repeat with the cache: every answer judged once; an unchanged re-run makes no judge call', async () => {
  judge = await startParisJudge();
  const workspace = flakyRepo();
  const cache = path.join(workspace, '.cache');
  const inputs = {
    suites: 'evals/*.yaml',
    targets: 'targets.yaml',
    'judge-base-url': judge.url,
    'judge-api-key': 'sk-e2e-judge-key-000111',
    'cache-dir': cache,
    baseline: 'off',
    repeat: '5',
    'fail-on': 'never',
  };
  const first = await runAction({ workspace, inputs, eventName: 'push', timeoutMs: 120_000 });
  expect(first.code).toBe(0);
  const calls = judge.state.requests.length;
  expect(calls).toBeGreaterThan(0);
  expect(calls).toBeLessThanOrEqual(25);
  const before = readResults(workspace);
  const again = await runAction({ workspace, inputs, eventName: 'push', timeoutMs: 120_000 });
  expect(again.code).toBe(0);
  expect(judge.state.requests.length).toBe(calls);
  const after = readResults(workspace);
  expect(after.usage.judge_calls).toBe(0);
  expect(casesOf(after).coin!.answers!.map((x) => x.verdict)).toEqual(
    casesOf(before).coin!.answers!.map((x) => x.verdict),
  );
}, 300_000);

test('a fixed repeat reads the observed rate: 3 answers all passing pass (pass 3/3), with one warning that 3 are few', async () => {
  judge = await startParisJudge();
  const workspace = flakyRepo();
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'evals/*.yaml',
      targets: 'targets.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'cache-dir': '',
      baseline: 'off',
      repeat: '3',
    },
    eventName: 'push',
    timeoutMs: 120_000,
  });
  const c = casesOf(readResults(workspace));
  expect(c.always).toMatchObject({
    verdict: 'pass',
    repeats: 3,
    pass_rate: 1,
    pass_rate_low: 0.3684,
    pass_rate_high: 1,
  });
  expect(c.never).toMatchObject({ verdict: 'fail', repeats: 3, pass_rate: 0 });
  // Every case is decided on its observed rate: none is left inconclusive.
  for (const x of Object.values(c)) {
    expect(['pass', 'fail']).toContain(x.verdict);
    expect(x.verdict).toBe(x.pass_rate! >= 0.8 ? 'pass' : 'fail');
  }
  expect(readResults(workspace).counts.inconclusive ?? 0).toBe(0);
  const warning =
    'repeat: 3 answers per case are too few for the interval to exclude min-case-pass-rate 0.8 (it takes 14): ' +
    'each verdict is the observed pass rate against 0.8, with the interval beside it; use repeat: auto to decide on the evidence';
  expect(run.stdout.split(warning).length - 1).toBe(1);
  // The summary reads pass 3/3, the interval beside it.
  expect(run.summary).toContain(
    '| ✅ | `always` | <abbr title="3 of 3 answers passed (rate 1.00); exact 90% interval 0.37–1.00">3/3</abbr> |',
  );
  expect(run.code).toBe(1);
}, 300_000);

test('auto may leave a case inconclusive: that does not fail the check by default; fail-on: inconclusive does; a bad repeat fails the step naming the input', async () => {
  judge = await startParisJudge();
  const workspace = flakyRepo();
  // At a required rate of 0.5, the case right half the time stays undecided after 20 answers.
  const inputs = (over: Record<string, string>) => ({
    suites: 'evals/*.yaml',
    targets: 'targets.yaml',
    'judge-base-url': judge!.url,
    'judge-api-key': 'sk-e2e-judge-key-000111',
    'cache-dir': '',
    baseline: 'off',
    repeat: 'auto',
    'min-case-pass-rate': '0.5',
    ...over,
  });
  const run = await runAction({
    workspace,
    inputs: inputs({ 'fail-on': 'never' }),
    eventName: 'push',
    timeoutMs: 180_000,
  });
  const r = readResults(workspace);
  const undecided = r.counts.inconclusive ?? 0;
  expect(casesOf(r).coin!.verdict).toBe('inconclusive');
  expect(run.outputs).toMatchObject({ inconclusive: String(undecided) });
  // The coin case alone: inconclusive is its only verdict.
  writeFileSync(
    path.join(workspace, 'evals/coin.yaml'),
    'execution:\n  target: app\nevalcases:\n  - id: coin\n    input: What is the capital of France?\n' +
      '    rubrics:\n      - id: names-paris\n        expected_outcome: Says Paris\n        required: true\n',
  );
  const lenient = await runAction({
    workspace,
    inputs: inputs({ suites: 'evals/coin.yaml' }),
    eventName: 'push',
    timeoutMs: 180_000,
  });
  expect(lenient.code).toBe(0);
  const strict = await runAction({
    workspace,
    inputs: inputs({ suites: 'evals/coin.yaml', 'fail-on': 'inconclusive' }),
    eventName: 'push',
    timeoutMs: 180_000,
  });
  expect(strict.code).toBe(1);
  expect(strict.stdout).toContain('1 inconclusive');

  const bad = await runAction({ workspace, inputs: inputs({ repeat: '21' }), eventName: 'push' });
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain("repeat: must be an integer from 1 to 20 or auto (got '21')");
}, 400_000);
