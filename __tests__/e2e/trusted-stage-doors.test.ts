import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type FakeArtifact,
  type FakeGitHub,
  type FakePull,
  startGitHubServer,
} from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';
import {
  baseCheckout,
  bundle,
  HEAD,
  judgeInputs,
  PR,
  recordArtifact,
  strictJudge,
  workflowRunEvent,
  zipOf,
} from '../helpers/trusted-stage.js';
import { deflatedZeros, zipDeclaring, zipWithRepeats } from '../helpers/zip-entries.js';

/**
 * The trusted stage's last doors (the README's Guarantees), through
 * dist/index.js on a workflow_run event: which pull request is the run's, and the bundle's zip.
 */

let judge: FakeOpenAI | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  judge = github = undefined;
});

function base(): string {
  const root = tmpDir('re-doors-');
  mkdirSync(path.join(root, 'markers'));
  return baseCheckout(root, path.join(root, 'markers'));
}

async function judgeStage(workspace: string, artifacts: FakeArtifact[], pulls: FakePull[]) {
  judge = await strictJudge();
  github = await startGitHubServer({ artifacts, pulls });
  const run = await runAction({
    workspace,
    eventName: 'workflow_run',
    event: workflowRunEvent(),
    inputs: judgeInputs(judge.url),
    apiUrl: github.url,
  });
  const results = JSON.parse(
    readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
  ) as RunResults;
  return { run, results, statuses: github.state.trusted.statuses, comments: github.state.comments };
}

test("a closed pull request, or another fork's, at the run's commit is not the run's: the victim's status is still judged", async () => {
  // The victim's pull request is linked to its commit; the attacker opened two more from the
  // same commit in their own fork (one closed again), with a branch of the same name.
  const victim: FakePull = { ...PR, linked: true };
  const mallory = { ref: 'feature', label: 'mallory:feature', repo: { full_name: 'mallory/repo' } };
  const closed: FakePull = {
    ...victim,
    number: 31,
    title: 'x',
    state: 'closed',
    head: { ...victim.head, ...mallory },
  };
  const otherFork: FakePull = { ...victim, number: 32, title: 'y', head: { ...victim.head, ...mallory } };
  // Closed, from the run's own fork and branch: not the run's either.
  const closedSame: FakePull = { ...victim, number: 33, title: 'z', state: 'closed' };
  const { results, statuses, comments } = await judgeStage(
    base(),
    recordArtifact(zipOf(JSON.stringify(bundle()))),
    [closed, otherFork, closedSame, victim],
  );
  expect(results.errors).toEqual([]);
  expect(results.trusted).toMatchObject({ pr_number: 12, head_sha: HEAD });
  expect(statuses.map((s) => s.state)).toEqual(['pending', 'success']);
  expect(comments.map((c) => c.issue)).toEqual([12]);
}, 120_000);

test('a record bundle zip with two entries of one name is refused before inflating: status error, nothing judged', async () => {
  // The directory's first entry is a bundle whose answers fail; the second, of the same name, one
  // whose answers pass (an unzipper inflates both, and the last one wins).
  const failing = (bundle().answers as { answer: string }[]).map((a) => ({ ...a, answer: 'no idea' }));
  const zip = zipWithRepeats([
    ['rubric-eval-record.json', JSON.stringify(bundle({ answers: failing }))],
    ['rubric-eval-record.json', JSON.stringify(bundle())],
  ]);
  const { results, statuses, run } = await judgeStage(base(), recordArtifact(zip), [PR]);
  expect(results.errors.join('\n')).toMatch(/two entries named rubric-eval-record\.json: refused/);
  expect(statuses.map((s) => s.state)).toEqual(['pending', 'error']);
  expect(judge!.state.requests).toHaveLength(0);
  expect(run.code).toBe(1);
}, 120_000);

test('a record bundle zip whose entry inflates past its declared size is refused at that size: status error, nothing judged', async () => {
  // About 1 GB of zeros in about 6.8 MB, declared as 100 bytes: inflating it whole took seconds of CPU.
  const zip = zipDeclaring('rubric-eval-record.json', deflatedZeros(1 << 22), 8, 100);
  const started = Date.now();
  const { results, statuses, run } = await judgeStage(base(), recordArtifact(zip), [PR]);
  expect(results.errors.join('\n')).toMatch(
    /rubric-eval-record\.json in the artifact inflates past its declared 100 bytes: refused/,
  );
  expect(statuses.map((s) => s.state)).toEqual(['pending', 'error']);
  expect(judge!.state.requests).toHaveLength(0);
  expect(run.code).toBe(1);
  // Wall time of the whole action on a shared machine: a loose bound, the unit test bounds the CPU.
  expect(Date.now() - started).toBeLessThan(60_000);
}, 120_000);

describe("the judge stage's own spend on model-only head cases", () => {
  /** A base checkout whose one suite a model-only target answers, and the head's version of it. */
  function modelOnly(headSuite: string) {
    const root = tmpDir('re-doors-model-');
    const workspace = path.join(root, 'base');
    mkdirSync(path.join(workspace, 'evals'), { recursive: true });
    const baseSuite = [
      'evalcases:',
      ...['big', 'attached', 'fine'].flatMap((id) => [
        `  - id: ${id}`,
        `    input: Question ${id}`,
        '    rubrics: [Answers well]',
      ]),
    ].join('\n');
    writeFileSync(path.join(workspace, 'evals/model.yaml'), `${baseSuite}\n`);
    return { workspace, headSuite };
  }
  const HEAD_SUITE = [
    'evalcases:',
    '  - id: big',
    `    input: "${'many words '.repeat(30_000)}"`,
    '    rubrics: [Answers well]',
    '  - id: attached',
    '    input_messages:',
    '      - role: user',
    '        content:',
    '          - type: text',
    '            value: Summarise the attached policy',
    '          - type: file',
    '            value: https://github.com/octo/repo/blob/main/docs/policy.md',
    '    rubrics: [Answers well]',
    '  - id: fine',
    '    input: A short question',
    '    rubrics: [Answers well]',
    '',
  ].join('\n');

  async function judgeModelOnly(inputs: Record<string, string>) {
    judge = await startOpenAIServer({
      respond: ({ desc }) => {
        if (desc.mode === 'chat') return 'GOOD answer';
        if (desc.mode !== 'checklist') return undefined;
        return {
          checks: desc.ids.map((id) => ({ id, satisfied: desc.text.includes('GOOD'), reasoning: 'judged' })),
          overall_reasoning: 'judged',
        };
      },
    });
    const { workspace, headSuite } = modelOnly(HEAD_SUITE);
    writeFileSync(
      path.join(workspace, 'targets.yaml'),
      `targets:\n  - name: default\n    provider: openai\n    endpoint: ${judge.url}\n    api_key: \${{ APP_KEY }}\n    model: app-model\n`,
    );
    github = await startGitHubServer({
      artifacts: recordArtifact(zipOf(JSON.stringify(bundle({ answers: [], gates: [] })))),
      pulls: [PR],
      files: { [`octo/repo@${HEAD}:evals/model.yaml`]: headSuite },
    });
    const run = await runAction({
      workspace,
      eventName: 'workflow_run',
      event: workflowRunEvent(),
      inputs: { ...judgeInputs(judge.url), rubric: '', ...inputs },
      env: { APP_KEY: 'app-key-123456' },
      apiUrl: github.url,
    });
    const results = JSON.parse(
      readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
    ) as RunResults;
    return { run, results, statuses: github.state.trusted.statuses };
  }

  test('a head case past the size bound, or one attaching a file the stage cannot fetch, is an error; the rest are answered', async () => {
    const { results, statuses } = await judgeModelOnly({});
    const cases = Object.fromEntries(results.suites[0]!.cases.map((c) => [c.id, c]));
    expect(cases.big).toMatchObject({ verdict: 'error', answered_by: 'judge' });
    expect(cases.big!.error).toMatch(
      /case input is \d+ characters, over the judge stage's 200000: not answered/,
    );
    expect(cases.attached).toMatchObject({ verdict: 'error', answered_by: 'judge' });
    expect(cases.attached!.error).toMatch(
      /attaches https:\/\/github\.com\/octo\/repo\/blob\/main\/docs\/policy\.md, which the judge stage cannot fetch/,
    );
    expect(cases.fine).toMatchObject({ verdict: 'pass', answered_by: 'judge' });
    // Nothing of the big input went to the model.
    expect(judge!.state.requests.every((r) => JSON.stringify(r.body).length < 100_000)).toBe(true);
    expect(statuses.map((s) => s.state)).toEqual(['pending', 'failure']);
  }, 120_000);

  test('budget-usd with a judge model of no known price: an input error before any call, status error', async () => {
    const { results, statuses, run } = await judgeModelOnly({
      'budget-usd': '1',
      'judge-model': 'my-own-model',
    });
    expect(results.errors.join('\n')).toContain(
      "budget-usd: the judge model 'my-own-model' has no known price",
    );
    expect(judge!.state.requests).toHaveLength(0);
    expect(statuses.map((s) => s.state)).toEqual(['pending', 'error']);
    expect(run.code).toBe(1);
  }, 120_000);
});
