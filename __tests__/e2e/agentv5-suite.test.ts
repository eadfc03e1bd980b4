import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
beforeEach(async () => {
  judge = await startOpenAIServer();
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Add search', body: 'Implements search.', diff: PR_DIFF, files: [] },
  });
});
afterEach(async () => {
  await judge.close();
  await github.close();
});

/** An AgentV 5 / promptfoo suite: prompts with vars, default_test, deterministic assertions, llm-rubric, criteria. */
const SUITE = `description: Capitals, as JSON
prompts:
  - "Answer in JSON: {{ question }}"
providers:
  - local
default_test:
  assert:
    - type: is-json
      value: { type: object, required: [city] }
tests:
  - id: france
    vars: { question: What is the capital of France? }
    assert:
      - type: contains
        value: Paris
      - type: regex
        value: '"population":\\s*\\d+'
      - type: llm-rubric
        value: Names Paris as the capital
      - The answer is a JSON object.
  - id: spain
    vars: { question: What is the capital of Spain? }
    assert:
      - type: contains
        value: Madrid
        required: true
      - The answer names the capital of Spain.
`;

test('an AgentV 5 suite runs through dist/index.js: comment, outputs and results file by AgentV 5 scoring', async () => {
  const workspace = tmpDir('re-agentv5-');
  mkdirSync(path.join(workspace, 'evals'));
  mkdirSync(path.join(workspace, '.agentv'));
  writeFileSync(path.join(workspace, 'evals/capitals.yaml'), SUITE);
  writeFileSync(
    path.join(workspace, '.agentv/providers.yaml'),
    '- id: mock\n  label: local\n  response: "{}"\n',
  );
  writeFileSync(
    path.join(workspace, 'answers.jsonl'),
    [
      { eval_id: 'france', candidate_answer: '{"city": "Paris", "population": 2100000}' },
      { eval_id: 'spain', candidate_answer: '{"city": "Barcelona"}' },
    ]
      .map((a) => JSON.stringify(a))
      .join('\n'),
  );
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'evals/*.yaml',
      'answers-file': 'answers.jsonl',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'github-token': 'ghs_e2e_token_000111',
      'cache-dir': '',
    },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(1);
  expect(run.outputs).toMatchObject({ verdict: 'fail', passed: '1', failed: '1' });

  const results = JSON.parse(
    readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
  ) as RunResults;
  const [france, spain] = results.suites[0]!.cases;
  expect(france).toMatchObject({ id: 'france', verdict: 'pass', score: 1 });
  // AgentV 5's order: the test's own assertions, then default_test's.
  expect(france!.evaluators.map((e) => `${e.name}:${e.type}:${e.weight}:${e.score}`)).toEqual([
    'contains-1:text_assertion:1:1',
    'regex-2:text_assertion:1:1',
    'llm-rubric-3:llm_judge:1:1',
    'criteria:llm_judge:1:1',
    'is-json-1:text_assertion:1:1',
  ]);
  // A failed required assertion zeroes the test, whatever else it scored.
  expect(spain).toMatchObject({ id: 'spain', verdict: 'fail', score: 0 });
  expect(spain!.gating_violations).toEqual(['contains-1: required, scored 0.00 < 0.8 (the test scores 0)']);
  expect(results.usage.judge_calls).toBe(3);

  const comment = github.state.comments[0]!.body;
  expect(comment.split('\n')[0]).toBe('<!-- rubric-eval -->');
  expect(comment).toContain('evals/capitals.yaml');
  // The failing case first, with why; the passing one folded below.
  expect(comment).toMatch(/`spain` \| 0\.00 \| 1\/1 \|[^\n]*contains-1: required, scored 0\.00 &lt; 0\.8/);
  expect(comment).toContain('- contains-1: output does not contain "Madrid"');
  // One checklist item (the plain string): the llm-rubric is a score, not a ticked item.
  expect(comment).toMatch(/\| ✅ \| `france` \| 1\.00 \| 1\/1 \|/);
  expect(run.summary).toContain('spain');
});
