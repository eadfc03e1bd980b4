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

/**
 * examples/promptfoo/assertions end to end: the suite's code (javascript, python, transforms)
 * and the judge-graded types (similar, the model-graded family), through dist/cli.js and
 * dist/index.js, with a scripted judge that answers each step by its schema name.
 */
const REPLIES: Record<string, (user: string) => unknown> = {
  factuality: (u) => ({ reason: 'compared', category: u.includes('Milan') ? 'D' : 'C' }),
  closedqa: () => ({ reason: 'names Paris', meets_criterion: true }),
  statements: () => ({ statements: ['Paris is the capital of France.'] }),
  verdicts: () => ({ verdicts: [{ reason: 'line 1', supported: true }] }),
  relevant_lines: () => ({ reason: 'line 1', relevant_lines: [1] }),
  attributions: () => ({
    sentences: [
      { sentence: 'Paris is the capital of France.', attributed: true },
      { sentence: 'The Seine flows through Paris.', attributed: true },
    ],
  }),
  questions: () => ({ questions: ['What is the capital of France?'] }),
  geval_steps: () => ({ steps: ['Check the city named', 'Check it is brief'] }),
  geval_score: () => ({ reason: 'names the wrong city', score: 2 }),
};

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startOpenAIServer({
    respond: ({ body }) => {
      const name = String(body?.response_format?.json_schema?.name ?? '').replace(/^promptfoo_/, '');
      const user = (body.messages as { role: string; content: string }[])
        .filter((m) => m.role !== 'system')
        .map((m) => m.content)
        .join('\n');
      return REPLIES[name]?.(user);
    },
  });
});
afterEach(() => judge.close());

function workspace(): string {
  const ws = tmpDir('re-pf-assertions-');
  cpSync(path.join(REPO_ROOT, 'examples/promptfoo/assertions'), path.join(ws, 'assertions'), {
    recursive: true,
  });
  return ws;
}

const byId = (r: RunResults) =>
  Object.fromEntries(r.suites.flatMap((s) => s.cases).map((c): [string, CaseResult] => [c.id, c]));
const ev = (c: CaseResult) => c.evaluators.map((e) => `${e.name}:${e.score.toFixed(2)}:${e.verdict}`);

test('code.yaml through dist/cli.js: javascript, python and transforms graded by the suite’s code', async () => {
  const ws = workspace();
  const r = await runCli(
    [
      'run',
      'assertions/code.yaml',
      '--answers',
      'assertions/answers.jsonl',
      '--out',
      'results.json',
      '--no-cache',
    ],
    { cwd: ws },
  );
  // The answers file is shared with graded.yaml: its two answers match no case here.
  expect(r.stderr.trim().split('\n')).toEqual([
    "warning: assertions/answers.jsonl:4:1 unknown-case: answer for 'capital' matches no case",
    "warning: assertions/answers.jsonl:5:1 unknown-case: answer for 'wrong-capital' matches no case",
  ]);
  expect(r.code).toBe(1);
  const results = JSON.parse(readFileSync(path.join(ws, 'results.json'), 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  const c = byId(results);
  expect(ev(c['status-short']!)).toEqual([
    'javascript-1:1.00:pass',
    'javascript-2:1.00:pass',
    'javascript-3:1.00:pass',
    'not-javascript-4:1.00:pass',
    'python-5:1.00:pass',
  ]);
  expect(ev(c['status-json']!)).toEqual([
    'javascript-1:1.00:pass',
    'python-2:1.00:pass',
    'equals-3:1.00:pass',
  ]);
  expect(c['status-json']!.evaluators[2]!.transformed_output).toBe('SHIPPED');
  expect(c['status-json']!.evaluators[0]!.transformed_output).toBe('{"order":"1042","status":"shipped"}');
  expect(c['status-json']!.answer).toBe('{"order": "1042", "status": "shipped"}');
  expect(ev(c['status-rambling']!)).toEqual(['javascript-1:0.00:fail', 'javascript-2:0.00:fail']);
  expect(c['status-rambling']!.evaluators[1]!.reasoning).toBe('order 77 not named');
  expect(r.stdout).toContain('status-rambling');
  // No judge was needed, and none was asked.
  expect(judge.state.requests).toHaveLength(0);
});

let github: FakeGitHub;
afterEach(() => github?.close());

test('both examples through dist/index.js: the comment and the results file, judged types included', async () => {
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Order bot', body: 'promptfoo checks', diff: PR_DIFF, files: [] },
  });
  const ws = workspace();
  const run = await runAction({
    workspace: ws,
    inputs: {
      suites: 'assertions/*.yaml',
      'answers-file': 'assertions/answers.jsonl',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'github-token': 'ghs_e2e_token_000111',
      'embedding-model': 'my-embedder',
      'cache-dir': '',
    },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.outputs).toMatchObject({ verdict: 'fail', passed: '3', failed: '2' });
  const results = JSON.parse(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  const c = byId(results);
  expect(ev(c.capital!)).toEqual([
    'similar-1:1.00:pass',
    'factuality-2:1.00:pass',
    'model-graded-closedqa-3:1.00:pass',
    'context-faithfulness-4:1.00:pass',
    'context-relevance-5:0.33:pass',
    'context-recall-6:1.00:pass',
    'answer-relevance-7:1.00:pass',
  ]);
  expect(ev(c['wrong-capital']!)).toEqual(['factuality-1:0.00:fail', 'g-eval-2:0.20:fail']);
  const embeddings = judge.state.requests.filter((q) => /embeddings/.test(String(q.url)));
  expect(embeddings.length).toBeGreaterThan(0);
  expect(embeddings.every((q) => q.body.model === 'my-embedder')).toBe(true);
  expect(embeddings.every((q) => q.headers.authorization === 'Bearer sk-e2e-judge-key-000111')).toBe(true);
  const comment = github.state.comments[0]!.body;
  expect(comment).toContain('assertions/code.yaml');
  expect(comment).toMatch(
    /\*\*`wrong-capital`\*\*\n- factuality-1: compared\n- g-eval-2: names the wrong city/,
  );
  expect(comment).toMatch(
    /\*\*`status-rambling`\*\*[^*]*- javascript-2: order 77 not named\n- javascript-2: graded after its transform: .Well, let me/,
  );
});
