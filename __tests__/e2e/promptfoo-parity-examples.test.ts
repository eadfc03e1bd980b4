import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * examples/promptfoo/parity, graded end to end through dist/cli.js and dist/index.js against the
 * fake model and grader scripts/promptfoo-parity.mjs uses: the model answers `Reply with: <text>`
 * with <text>; the grader scores a rubric by its `score:<s>` and fails it on the word `fail`.
 * The expected verdicts are promptfoo's own (measured with that script), but for the one
 * difference docs/promptfoo.md explains (a CSV `llm-rubric(0.7):` keeps its threshold here).
 */
const FEATURES = [
  'verdict',
  'equals',
  'matrix',
  'assert-set',
  'llm-rubric',
  'metric',
  'is-json',
  'echo',
  'csv',
];

let model: FakeOpenAI;
let github: FakeGitHub;
beforeAll(async () => {
  model = await startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode === 'rubric') {
        const rubric = /\[\[ ## rubric ## \]\]\n([\s\S]*)$/.exec(desc.text)?.[1] ?? '';
        const score = Number(/score:([0-9.]+)/.exec(rubric)?.[1] ?? '1');
        return { reason: `rubric scored ${score}`, pass: !/\bfail\b/.test(rubric), score };
      }
      const m = /Reply with: (.*)$/m.exec(desc.text);
      return { content: m ? (JSON.parse(`"${m[1]}"`) as string) : 'no instruction' };
    },
  });
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'promptfoo suites', body: '', diff: PR_DIFF, files: [] },
  });
});
afterAll(async () => {
  await model.close();
  await github.close();
});

/** Per feature, per case id: verdict and score. */
const EXPECTED: Record<string, Record<string, [string, number]>> = {
  verdict: {
    'test-1': ['fail', 0.8],
    'test-2': ['pass', 0.75],
    'test-3': ['pass', 0.5],
    'test-4': ['fail', 0.5],
    'test-5': ['pass', 1],
    'test-6': ['pass', 0.75],
    'test-7': ['pass', 1],
  },
  equals: {
    'test-1': ['fail', 0],
    'test-2': ['pass', 1],
    'test-3': ['pass', 1],
    'test-4': ['pass', 1],
    'test-5': ['fail', 0],
    'test-6': ['fail', 0],
  },
  'assert-set': { 'test-1': ['pass', 0.5], 'test-2': ['fail', 0.5], 'test-3': ['pass', 0.8333] },
  'llm-rubric': {
    'test-1': ['pass', 0.3],
    'test-2': ['fail', 0.9],
    'test-3': ['fail', 0.6],
    'test-4': ['pass', 0.7],
    'test-5': ['pass', 0.8],
  },
  metric: { 'test-1': ['pass', 1], 'test-2': ['fail', 0.5] },
  'is-json': { 'test-1': ['pass', 1], 'test-2': ['fail', 0], 'test-3': ['fail', 0] },
  echo: { 'test-1': ['pass', 1], 'test-2': ['fail', 0] },
  csv: { 'test-1': ['pass', 1], 'test-2': ['fail', 0.5], 'test-3': ['fail', 0.6] },
};

test('the parity examples through dist/cli.js: every case, its verdict and score, labels in the report', async () => {
  const out = path.join(tmpDir('re-pf-parity-'), 'results.json');
  const suites = FEATURES.map((f) => `examples/promptfoo/parity/${f}/promptfooconfig.yaml`);
  const r = await runCli(
    [
      'run',
      ...suites,
      '--judge-base-url',
      model.url,
      '--judge-model',
      'grader',
      '--no-cache',
      '--out',
      out,
      '--format',
      'markdown',
      '--verbose',
    ],
    {
      env: {
        OPENAI_API_KEY: 'sk-e2e-parity-key-0123',
        OPENAI_BASE_URL: model.url,
        RUBRIC_EVAL_JUDGE_API_KEY: 'sk-e2e-judge-key-000111',
      },
    },
  );
  // Warnings only: the output-only test and the ignored grader, each named where written.
  expect(
    r.stderr
      .trim()
      .split('\n')
      .map((l) => /^warning: \S+ test \d+: ([\w-]+):/.exec(l)?.[1]),
  ).toEqual(['output-only', 'grader-ignored']);
  expect(r.code).toBe(1);
  const results = JSON.parse(readFileSync(out, 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  const by = Object.fromEntries(
    results.suites.map((s) => [s.path.split('/').at(-2)!, Object.fromEntries(s.cases.map((c) => [c.id, c]))]),
  );
  for (const [feature, cases] of Object.entries(EXPECTED))
    for (const [id, [verdict, score]] of Object.entries(cases)) {
      expect([feature, id, by[feature]![id]!.verdict]).toEqual([feature, id, verdict]);
      expect(by[feature]![id]!.score).toBeCloseTo(score, 3);
    }
  // 2 prompts x 2 providers x 2 tests, and the third test kept to one prompt and one provider.
  expect(Object.keys(by.matrix!).sort()).toEqual([
    'test-1__prompt_prompt-1__provider_nano',
    'test-1__prompt_prompt-1__provider_openai:gpt-4.1-mini',
    'test-1__prompt_prompt-2__provider_nano',
    'test-1__prompt_prompt-2__provider_openai:gpt-4.1-mini',
    'test-2__prompt_prompt-1__provider_nano',
    'test-2__prompt_prompt-1__provider_openai:gpt-4.1-mini',
    'test-2__prompt_prompt-2__provider_nano',
    'test-2__prompt_prompt-2__provider_openai:gpt-4.1-mini',
    'test-3__prompt_prompt-2__provider_nano',
  ]);
  expect(Object.values(by.matrix!).every((c) => c.verdict === 'pass')).toBe(true);
  expect(by.verdict!['test-1']!.label).toBe('four of five checks pass, so the test fails');
  // The report names cases by their description.
  expect(r.stdout).toContain('four of five checks pass, so the test fails');
});

test('a promptfoo config through dist/index.js: the comment shows each test by its description', async () => {
  const workspace = tmpDir('re-pf-parity-action-');
  cpSync(path.join(REPO_ROOT, 'examples/promptfoo/parity/verdict'), path.join(workspace, 'pf'), {
    recursive: true,
  });
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'pf/promptfooconfig.yaml',
      'judge-base-url': model.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'github-token': 'ghs_e2e_token_000111',
      'cache-dir': '',
    },
    env: { OPENAI_API_KEY: 'sk-e2e-parity-key-0123', OPENAI_BASE_URL: model.url },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.outputs).toMatchObject({ verdict: 'fail', passed: '5', failed: '2' });
  const comment = github.state.comments[0]!.body;
  expect(comment).toMatch(/four of five checks pass, so the test fails \(`test-1`\) \| 0\.80 \|/);
  expect(comment).toMatch(/four of five checks pass, so the test fails/);
});
