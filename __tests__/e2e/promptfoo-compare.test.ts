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
 * examples/promptfoo/compare end to end: two prompts answered by `echo`, each test's two cases
 * compared by select-best (a scripted judge picks the answer naming France) and max-score.
 */
let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startOpenAIServer({
    respond: ({ body }) => {
      if (body?.response_format?.json_schema?.name !== 'promptfoo_select_best') return undefined;
      const user = (body.messages as { role: string; content: string }[]).at(-1)!.content;
      const answers = [...user.matchAll(/\[Answer (\d+)\]\n<<<[^\n]*\n([^\n]*)/g)];
      const best = answers.find((m) => m[2]!.includes('France'));
      return { reason: 'names France', best: Number(best?.[1] ?? 0) };
    },
  });
});
afterEach(() => judge.close());

function workspace(): string {
  const ws = tmpDir('re-pf-compare-');
  cpSync(path.join(REPO_ROOT, 'examples/promptfoo/compare'), path.join(ws, 'compare'), { recursive: true });
  return ws;
}

const verdicts = (r: RunResults) =>
  Object.fromEntries(
    r.suites
      .flatMap((s) => s.cases)
      .map((c: CaseResult): [string, string] => [c.id, `${c.verdict} ${c.score.toFixed(2)}`]),
  );

const EXPECTED = {
  'best-sentence__prompt_terse': 'fail 0.00',
  'best-sentence__prompt_full': 'pass 1.00',
  'highest-score__prompt_terse': 'fail 0.00',
  'highest-score__prompt_full': 'pass 0.75',
  'below-threshold__prompt_terse': 'fail 0.00',
  'below-threshold__prompt_full': 'fail 0.00',
};

test('the example through dist/cli.js: one judge call, the winners kept, the others failed with 0', async () => {
  const ws = workspace();
  const r = await runCli(
    [
      'run',
      'compare/promptfooconfig.yaml',
      '--judge-base-url',
      judge.url,
      '--out',
      'results.json',
      '--no-cache',
    ],
    { cwd: ws, env: { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-e2e-judge-key-000111' } },
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(1);
  const results = JSON.parse(readFileSync(path.join(ws, 'results.json'), 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  expect(verdicts(results)).toEqual(EXPECTED);
  expect(results.usage.judge_calls).toBe(1);
  expect(r.stdout).toContain(
    'select-best-2: the judge picked best-sentence__prompt_full over this answer for: names both the city and its country',
  );
});

let github: FakeGitHub;
afterEach(() => github?.close());

test('the example through dist/index.js: the comment says why each loser lost', async () => {
  github = await startGitHubServer({
    pullRequest: { number: 9, title: 'Prompts', body: 'which prompt wins', diff: PR_DIFF, files: [] },
  });
  const ws = workspace();
  const run = await runAction({
    workspace: ws,
    inputs: {
      suites: 'compare/promptfooconfig.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-e2e-judge-key-000111',
      'github-token': 'ghs_e2e_token_000111',
      'cache-dir': '',
    },
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.outputs).toMatchObject({ verdict: 'fail', passed: '2', failed: '4' });
  const results = JSON.parse(readFileSync(path.join(ws, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  expect(verdicts(results)).toEqual(EXPECTED);
  const comment = github.state.comments[0]!.body;
  expect(comment).toContain(
    '**`highest-score__prompt_terse`**\n- contains-1: output does not contain "France"\n- max-score-3: scored 0.333; highest-score__prompt_full scored 0.833',
  );
  expect(comment).toContain(
    '**`below-threshold__prompt_full`**\n- contains-1: output does not contain "Berlin"\n- max-score-2: the highest score (0.000), below max-score\'s threshold 0.5',
  );
  expect(comment).toContain('the judge picked best-sentence__prompt_full over this answer');
});

/**
 * examples/promptfoo/parity/{select-best,max-score,max-score-defaults} through dist/cli.js against the fake model
 * and grader of scripts/promptfoo-parity.mjs (`Reply with: <text>`; select-best picks the longest
 * answer, the first of the longest; a rubric scores its `score:<s>`). The expected verdicts and
 * scores are promptfoo 0.121's own, measured with that script (20 of 20 agree).
 */
const PARITY: Record<string, Record<string, string>> = {
  'select-best': {
    'test-1__prompt_first': 'fail 0.00',
    'test-1__prompt_second': 'pass 1.00',
    'test-2__prompt_first': 'fail 0.00',
    'test-2__prompt_second': 'fail 0.00',
    'test-3__prompt_first': 'pass 0.00',
    'test-3__prompt_second': 'fail 0.00',
    'test-4__prompt_first': 'fail 0.00',
    'test-4__prompt_second': 'pass 0.50',
  },
  'max-score': {
    'test-1__prompt_first': 'fail 0.00',
    'test-1__prompt_second': 'pass 0.75',
    'test-2__prompt_first': 'pass 1.00',
    'test-2__prompt_second': 'fail 0.00',
    'test-3__prompt_first': 'fail 0.00',
    'test-3__prompt_second': 'fail 0.00',
    'test-4__prompt_first': 'fail 0.88',
    'test-4__prompt_second': 'fail 0.00',
    'test-5__prompt_first': 'fail 0.00',
    'test-5__prompt_second': 'pass 0.70',
  },
  // defaultTest's `contains-1` and the test's: each weighs once, 0.5 each, the first wins the tie.
  'max-score-defaults': {
    'test-1__prompt_first': 'fail 0.50',
    'test-1__prompt_second': 'fail 0.00',
  },
};

test.each(Object.keys(PARITY))(
  'parity/%s through dist/cli.js: promptfoo’s own verdicts and scores',
  async (feature) => {
    const model = await startOpenAIServer({
      respond: ({ body, desc }) => {
        if (body?.response_format?.json_schema?.name === 'promptfoo_select_best') {
          const user = (body.messages as { role: string; content: string }[]).at(-1)!.content;
          const answers = [...user.matchAll(/\[Answer (\d+)\]\n<<<[^\n]*\n([\s\S]*?)\n<<<END ANSWER_/g)];
          const best = answers.reduce((b, m) => (m[2]!.length > b[2]!.length ? m : b));
          return { reason: 'the longest', best: Number(best[1]) };
        }
        if (desc.mode === 'rubric') {
          const rubric = /\[\[ ## rubric ## \]\]\n([\s\S]*)$/.exec(desc.text)?.[1] ?? '';
          const score = Number(/score:([0-9.]+)/.exec(rubric)?.[1] ?? '1');
          return { reason: `rubric scored ${score}`, pass: !/\bfail\b/.test(rubric), score };
        }
        const m = /Reply with: (.*)$/m.exec(desc.text);
        return { content: m ? m[1]! : 'no instruction' };
      },
    });
    try {
      const ws = tmpDir(`re-pf-parity-${feature}-`);
      cpSync(path.join(REPO_ROOT, 'examples/promptfoo/parity', feature), ws, { recursive: true });
      const r = await runCli(
        ['run', 'promptfooconfig.yaml', '--judge-base-url', model.url, '--out', 'results.json', '--no-cache'],
        {
          cwd: ws,
          env: {
            RUBRIC_EVAL_JUDGE_API_KEY: 'sk-parity-judge-key-0123456789',
            OPENAI_API_KEY: 'sk-parity-check-key-0123456789',
            OPENAI_BASE_URL: model.url,
          },
        },
      );
      expect(r.stderr).toBe('');
      const results = JSON.parse(readFileSync(path.join(ws, 'results.json'), 'utf8')) as RunResults;
      expect(results.errors).toEqual([]);
      expect(verdicts(results)).toEqual(PARITY[feature]);
    } finally {
      await model.close();
    }
  },
);
