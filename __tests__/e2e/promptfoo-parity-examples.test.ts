import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { fakeReply } from '../../__fixtures__/servers/promptfoo-parity-grader.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * examples/promptfoo/parity, graded end to end through dist/cli.js and dist/index.js against the
 * fake model and grader scripts/promptfoo-parity.mjs uses (__fixtures__/servers/promptfoo-parity-grader.mjs):
 * the model answers `Reply with: <text>` with <text>; the grader answers each prompt family
 * (llm-rubric, factuality, g-eval, the context family, ...) from markers in the examples, and
 * `/v1/embeddings` embeds a bag of words. The expected verdicts and scores are promptfoo 0.121's
 * own (measured with that script), but for the one difference docs/promptfoo.md explains (a CSV
 * `llm-rubric(0.7):` keeps its threshold here).
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
  'javascript',
  'python',
  'transform',
  'similar',
  'factuality',
  'closedqa',
  'g-eval',
  'answer-relevance',
  'context-faithfulness',
  'context-relevance',
  'context-recall',
  'conversation-relevance',
  'nunjucks',
];

let model: FakeOpenAI;
let github: FakeGitHub;
beforeAll(async () => {
  model = await startOpenAIServer({ respond: ({ desc }) => ({ content: fakeReply(desc.text) }) });
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
  javascript: {
    'test-1': ['pass', 1],
    'test-2': ['fail', 0],
    'test-3': ['pass', 1],
    'test-4': ['pass', 0.4],
    'test-5': ['fail', 0],
    'test-6': ['fail', 0.5],
    'test-7': ['pass', 0.5],
    'test-8': ['fail', 0.3],
    'test-9': ['pass', 1],
    'test-10': ['fail', 0.75],
    'test-11': ['pass', 0.75],
    'test-12': ['fail', 0.2],
    'test-13': ['fail', 0],
  },
  python: {
    'test-1': ['pass', 1],
    'test-2': ['fail', 0],
    'test-3': ['pass', 0.9],
    'test-4': ['fail', 0.5],
    'test-5': ['pass', 0.5],
    'test-6': ['pass', 1],
    'test-7': ['pass', 0.5],
    'test-8': ['pass', 1],
  },
  transform: {
    'test-1': ['pass', 1],
    'test-2': ['pass', 1],
    'test-3': ['pass', 1],
    'test-4': ['pass', 1],
    'test-5': ['fail', 0],
  },
  similar: {
    'test-1': ['pass', 1],
    'test-2': ['pass', 0.8165],
    'test-3': ['fail', 0.7071],
    'test-4': ['pass', 0.7071],
    'test-5': ['pass', 0.8165],
    'test-6': ['fail', 0.3651],
    'test-7': ['pass', 0.6349],
    'test-8': ['fail', 0.0871],
    'test-9': ['pass', 0.8165],
  },
  factuality: {
    'test-1': ['pass', 1],
    'test-2': ['pass', 1],
    'test-3': ['fail', 0],
    'test-4': ['pass', 1],
    'test-5': ['pass', 0.4],
    'test-6': ['fail', 0],
  },
  closedqa: { 'test-1': ['pass', 1], 'test-2': ['fail', 0], 'test-3': ['fail', 0.5] },
  'g-eval': {
    'test-1': ['pass', 0.8],
    'test-2': ['fail', 0.6],
    'test-3': ['pass', 0.6],
    'test-4': ['pass', 0.75],
    'test-5': ['pass', 0.2],
    'test-6': ['pass', 0.7],
    'test-7': ['fail', 0.1],
  },
  'answer-relevance': {
    'test-1': ['pass', 0.8333],
    'test-2': ['pass', 0.1826],
    'test-3': ['fail', 0.7638],
    'test-4': ['pass', 0.8333],
    'test-5': ['pass', 0.9037],
  },
  'context-faithfulness': {
    'test-1': ['pass', 1],
    'test-2': ['pass', 0.5],
    'test-3': ['fail', 0.5],
    'test-4': ['pass', 0.6667],
  },
  'context-relevance': {
    'test-1': ['pass', 0.3333],
    'test-2': ['pass', 0.3333],
    'test-3': ['pass', 1],
    'test-4': ['fail', 0.3333],
    'test-5': ['fail', 0],
  },
  'context-recall': {
    'test-1': ['pass', 1],
    'test-2': ['pass', 0.5],
    'test-3': ['fail', 0.5],
    'test-4': ['pass', 0.5],
  },
  // Nunjucks is loaded lazily: this renders through the bundle's lazy import.
  nunjucks: {
    'test-1__prompt_text': ['pass', 1],
    'test-1__prompt_chat': ['pass', 1],
    'test-2__prompt_text': ['pass', 1],
    'test-2__prompt_chat': ['pass', 1],
  },
  'conversation-relevance': {
    'test-1': ['pass', 1],
    'test-2': ['fail', 0],
    'test-3': ['pass', 0.6667],
    'test-4': ['fail', 0.75],
    'test-5': ['pass', 1],
  },
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
