import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** What the scripted judge answers for each rubric of examples/promptfoo (promptfoo's {reason, pass, score}). */
const RUBRICS: [RegExp, boolean, number][] = [
  [/Explains how to request a refund/, true, 0.72],
  [/The answer is polite/, true, 0.9],
  [/Promises a delivery date/, false, 0.1],
  [/Says an order can be cancelled/, false, 0.3],
  [/States the opening hours/, true, 1],
  [/Names the capital city/, true, 1],
];

let judge: FakeOpenAI;
let github: FakeGitHub;
beforeEach(async () => {
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode !== 'rubric') return undefined;
      const rubric = desc.text.slice(desc.text.lastIndexOf('[[ ## rubric ## ]]'));
      const hit = RUBRICS.find(([re]) => re.test(rubric));
      return hit
        ? { reason: `scored ${hit[2]}`, pass: hit[1], score: hit[2] }
        : { reason: '?', pass: false, score: 0 };
    },
  });
  github = await startGitHubServer({
    pullRequest: {
      number: 7,
      title: 'Support bot',
      body: 'Migrated from promptfoo.',
      diff: PR_DIFF,
      files: [],
    },
  });
});
afterEach(async () => {
  await judge.close();
  await github.close();
});

test('the promptfoo examples run through dist/index.js as promptfoo grades them: comment, outputs, results file', async () => {
  const workspace = tmpDir('re-promptfoo-');
  cpSync(path.join(REPO_ROOT, 'examples/promptfoo'), path.join(workspace, 'promptfoo'), { recursive: true });
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'promptfoo/*.yaml',
      'answers-file': 'promptfoo/answers.jsonl',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'github-token': 'ghs_e2e_token_000111',
      'cache-dir': '',
    },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.outputs).toMatchObject({ verdict: 'fail', passed: '16', failed: '2' });
  expect(run.code).toBe(1);

  const results = JSON.parse(
    readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
  ) as RunResults;
  expect(results.errors).toEqual([]);
  const byId = Object.fromEntries(
    results.suites.flatMap((s) => s.cases).map((c): [string, CaseResult] => [c.id, c]),
  );
  const ev = (id: string) => byId[id]!.evaluators.map((e) => `${e.name}:${e.score.toFixed(2)}:${e.verdict}`);

  // llm-rubric is a score: 0.72 fails its own threshold 0.8; weighted 2, the test is (1 + 2×0.72 + 0.9) / 4.
  expect(ev('refund')).toEqual(['no-disclaimer:1.00:pass', 'llm-rubric-1:0.72:fail', 'polite:0.90:pass']);
  expect(byId.refund).toMatchObject({ verdict: 'pass' });
  expect(byId.refund!.score).toBeCloseTo(0.835, 3);
  // assert-set: weights 2 and 1 give 2/3, over its own threshold 0.6; the negated rubric scores 1 − 0.1.
  expect(ev('shipping')).toEqual(['no-disclaimer:1.00:pass', 'tracking:0.67:pass', 'llm-rubric-2:0.90:pass']);
  expect(byId.shipping).toMatchObject({ verdict: 'pass' });
  // required: 0.3 is below the test's own 0.9, so the test scores 0.
  expect(byId.cancel).toMatchObject({ verdict: 'fail', score: 0 });
  expect(byId.cancel!.gating_violations).toEqual([
    'llm-rubric-1: required, scored 0.30 < 0.9 (the test scores 0)',
  ]);
  // Output only, defaults off.
  expect(byId.greeting).toMatchObject({ verdict: 'pass', score: 1, evaluators: [] });
  // The CSV rows: __expected columns, __threshold, and default_test's threshold for the other.
  expect(ev('hours')).toEqual(['no-disclaimer:1.00:pass', 'icontains-1:1.00:pass', 'llm-rubric-2:1.00:pass']);
  expect(byId.address).toMatchObject({ verdict: 'fail', score: 0.5 });
  // configs.yaml: 2 prompts from one `---` file × (2 scenario rows + 4 array-var combinations).
  const configs = results.suites.find((s) => s.path.endsWith('configs.yaml'))!;
  expect(configs.cases.map((c) => c.id).sort()).toEqual(
    ['capitals-1', 'capitals-2', 'capitals-3', 'capitals-4', 'hello-1', 'hello-2']
      .flatMap((id) => [`${id}__prompt_reply-1`, `${id}__prompt_reply-2`])
      .sort(),
  );
  expect(configs.cases.every((c) => c.verdict === 'pass')).toBe(true);

  const comment = github.state.comments[0]!.body;
  expect(comment.split('\n')[0]).toBe('<!-- rubric-eval -->');
  expect(comment).toContain('promptfoo/grading.yaml');
  expect(comment).toMatch(/`cancel` \| 0\.00 \|[^\n]*llm-rubric-1: required, scored 0\.30 &lt; 0\.9/);
  // A test's description is its label (issue 42): shown with its id.
  expect(comment).toMatch(/our address \(`address`\) \| 0\.50 \|/);
});

test('a promptfoo feature rubric-eval does not run is refused at validate, by name and line', async () => {
  const r = await runCli(['validate', 'examples/promptfoo/refused/transform.yaml']);
  expect(r.code).not.toBe(0);
  const out = r.stdout + r.stderr;
  expect(out).toMatch(/transform\.yaml:8:.*promptfoo key 'options\.postprocess'/);
  expect(out).toMatch(/transform\.yaml:12:.*unknown assertion key 'treshold': did you mean 'threshold'\?/);
});
