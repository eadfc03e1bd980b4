import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { agreeingLabels, compositeSuite, disagreeingLabels } from '../helpers/calibration-labels.js';
import { makeFixtureRepo, PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge.close();
  await github.close();
});

async function servers(files: Record<string, string> = {}) {
  judge = await startParisJudge();
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Add search', body: '', diff: PR_DIFF, files: [] },
    files,
  });
}

const LABELS = 'evals/labels.jsonl';
const text = (lines: string[]) => `${lines.join('\n')}\n`;

/** The fixture repository answering Lyon (the judge fails `names-paris`), the labels committed as the base. */
function repo(baseLabels: string[] | null, suite?: string): { root: string; base: string } {
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  if (suite) writeFileSync(path.join(root, 'evals/qa.yaml'), suite);
  if (baseLabels) writeFileSync(path.join(root, LABELS), text(baseLabels));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@e',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@e',
      },
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return { root, base: git('rev-parse', 'HEAD').trim() };
}

const event = (base: string) => ({
  ...PR_EVENT,
  pull_request: { ...PR_EVENT.pull_request, base: { sha: base, ref: 'main' } },
});

const inputs = (extra: Record<string, string> = {}) => ({
  suites: 'evals/*.yaml',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-e2e-judge-key-000111',
  'github-token': 'ghs_e2e_token_000111',
  'cache-dir': '.cache',
  baseline: 'off',
  calibration: LABELS,
  'min-judge-agreement': '0.6',
  ...extra,
});

const results = (root: string): RunResults =>
  JSON.parse(readFileSync(path.join(root, 'rubric-eval-results.json'), 'utf8'));
const capital = (r: RunResults) => r.suites[0]!.cases.find((c) => c.id === 'capital-of-france')!;

test('a criterion the judge gets wrong against the labels is advisory: the case passes; with fail-on: calibration the check fails', async () => {
  await servers();
  const { root, base } = repo(disagreeingLabels());
  const run = await runAction({ workspace: root, inputs: inputs(), event: event(base), apiUrl: github.url });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const r = results(root);
  expect(capital(r).verdict).toBe('pass');
  expect(r.calibration).toMatchObject({ source: `base ${base.slice(0, 7)}`, labels: 12, effect: 'advisory' });
  expect(r.calibration!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  const comment = github.state.comments[0]!.body;
  expect(comment).toContain('**judge agreement: κ 0.33 over 12 labels; 1 check advisory**');
  expect(comment).toMatch(
    /`evals\/qa\.yaml › capital-of-france › names-paris` is advisory \(shown, not gating\): κ 0\.00/,
  );

  // The same labels, cached: no judge call for them again; now they fail the check.
  const served = judge.state.served;
  const strict = await runAction({
    workspace: root,
    inputs: inputs({ 'fail-on': 'calibration' }),
    event: event(base),
    apiUrl: github.url,
  });
  expect(judge.state.served).toBe(served);
  expect(strict.code).toBe(1);
  expect(strict.stdout).toMatch(
    /::error::rubric-eval: fail \(score [0-9.]+\): 1 failed, 1 check below min-judge-agreement 0\.6 \(names-paris κ 0\.00\)/,
  );
  expect(capital(results(root)).verdict).toBe('fail');
});

test('inside nested composites too: the labelled check turns advisory and the case passes', async () => {
  await servers();
  const { root, base } = repo(disagreeingLabels(), compositeSuite());
  const run = await runAction({ workspace: root, inputs: inputs(), event: event(base), apiUrl: github.url });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const r = results(root);
  const combo = capital(r).evaluators[0]!;
  expect(combo).toMatchObject({ name: 'combo', score: 1, verdict: 'pass', gating_violations: [] });
  const facts = combo.children![0]!.children![0]!;
  expect(facts.checks!.find((c) => c.id === 'names-paris')).toMatchObject({
    satisfied: false,
    advisory: expect.stringMatching(/^κ 0\.00 /),
  });
  expect(capital(r)).toMatchObject({ verdict: 'pass', gating_violations: [] });
  expect(github.state.comments[0]!.body).toContain(
    '**judge agreement: κ 0.33 over 12 labels; 1 check advisory**',
  );
});

test('a pull request that rewrites the labels to make a criterion advisory changes nothing that gates', async () => {
  await servers();
  const { root, base } = repo(agreeingLabels());
  // The PR's head: labels that contradict the judge, so that its own failing case would pass.
  writeFileSync(path.join(root, LABELS), text(disagreeingLabels()));
  const run = await runAction({ workspace: root, inputs: inputs(), event: event(base), apiUrl: github.url });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(1);
  const r = results(root);
  expect(capital(r).verdict).toBe('fail');
  expect(capital(r).gating_violations).toEqual(['names-paris: required item not satisfied']);
  expect(r.calibration!.below_floor).toEqual([]);
  expect(r.calibration!.after_merge!.below_floor.map((b) => b.check)).toEqual(['names-paris']);
  const comment = github.state.comments[0]!.body;
  expect(comment).toContain('**judge agreement: κ 1.00 over 12 labels; 0 checks advisory**');
  expect(comment).toContain('κ after merge: 0.33 over 12 labels');
  expect(comment).toContain('`evals/qa.yaml › capital-of-france › names-paris` κ 1.00 → κ after merge: 0.00');
  // Not even fail-on: calibration gates on the PR's labels.
  const strict = await runAction({
    workspace: root,
    inputs: inputs({ 'fail-on': 'calibration' }),
    event: event(base),
    apiUrl: github.url,
  });
  expect(strict.stdout).toMatch(/::error::rubric-eval: fail \(score [0-9.]+\): 1 failed\n/);
});

test('a checkout without the base commit reads the labels through the API at the base sha, never the head', async () => {
  const base = 'b0a5e5e1b0a5e5e1b0a5e5e1b0a5e5e1b0a5e5e1';
  judge = await startParisJudge();
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Add search', body: '', diff: PR_DIFF, files: [] },
    files: { [`octo/repo@${base}:${LABELS}`]: text(agreeingLabels()) },
  });
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  writeFileSync(path.join(root, LABELS), text(disagreeingLabels()));
  const run = await runAction({ workspace: root, inputs: inputs(), event: event(base), apiUrl: github.url });
  const r = results(root);
  expect(r.errors).toEqual([]);
  expect(run.code).toBe(1);
  expect(r.calibration!.source).toBe('base b0a5e5e (GitHub API)');
  expect(capital(r).verdict).toBe('fail');
  const contents = github.state.requests.filter((q) => q.path.includes('/contents/'));
  expect(contents.map((q) => [decodeURIComponent(q.path), q.query.ref])).toEqual([
    [`/repos/octo/repo/contents/${LABELS}`, base],
  ]);
});
