import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { REPO_ROOT } from '../helpers/paths.js';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { startParisJudge } from '../helpers/paris-judge.js';

/**
 * `check-run: true` end to end through dist/index.js against the fake GitHub (README "Check
 * run"): the check run's requests, checked against GitHub's own REST description, and its
 * annotations at the line of each failing case's `id:`, 50 a request.
 */

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

type Schema = Record<string, unknown>;
const OPENAPI = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'node_modules/@octokit/openapi/generated/api.github.com.json'), 'utf8'),
) as { paths: Record<string, Record<string, Schema>>; components: Record<string, Record<string, Schema>> };

/** The operation's request body schema, its `$ref`s inlined from the description's components. */
function bodySchema(route: string, method: 'post' | 'patch'): Schema {
  const inline = (node: unknown, depth = 0): unknown => {
    if (depth > 40 || typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return node.map((n) => inline(n, depth + 1));
    const ref = (node as { $ref?: string }).$ref;
    if (ref) {
      const [, , kind, name] = ref.split('/') as [string, string, string, string];
      return inline(OPENAPI.components[kind]![name], depth + 1);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, depth + 1)]));
  };
  const op = OPENAPI.paths[route]![method] as {
    requestBody: { content: Record<string, { schema: Schema }> };
  };
  return inline(op.requestBody.content['application/json']!.schema) as Schema;
}
const ajv = new Ajv({ strict: false, allErrors: true });
const validCreate = ajv.compile(bodySchema('/repos/{owner}/{repo}/check-runs', 'post'));
const validUpdate = ajv.compile(bodySchema('/repos/{owner}/{repo}/check-runs/{check_run_id}', 'patch'));

/** Every check-run request the action sent, each checked against GitHub's description. */
function checkRunRequests(): { method: string; body: Record<string, unknown> }[] {
  const sent = github.state.requests.filter((r) => r.path.includes('/check-runs'));
  for (const r of sent) {
    const valid = r.method === 'POST' ? validCreate : validUpdate;
    expect([r.method, r.path, valid(r.body) ? 'valid' : ajv.errorsText(valid.errors)]).toEqual([
      r.method,
      r.path,
      'valid',
    ]);
  }
  return sent.map((r) => ({ method: r.method, body: r.body as Record<string, unknown> }));
}

/**
 * A repository whose suite lives under `app/` (the working directory): `failing` cases answered
 * "Lyon" and `passing` answered "Paris"; every third case puts its `id:` after `input:`.
 */
function repo(failing: number, passing: number): { root: string; idLines: Map<string, number> } {
  const root = tmpDir('re-check-');
  const app = path.join(root, 'app');
  mkdirSync(path.join(app, 'evals'), { recursive: true });
  const ids = Array.from({ length: failing + passing }, (_, i) => `case-${i}`);
  const answers = ids.map((id, i) => `      ${id}: ${i < failing ? '"It is Lyon."' : '"Paris."'}`);
  writeFileSync(
    path.join(app, 'targets.yaml'),
    `targets:\n  - name: default\n    provider: mock\n    responses:\n${answers.join('\n')}\n`,
  );
  const lines = ['evalcases:'];
  for (const [i, id] of ids.entries()) {
    if (i % 3 === 0) lines.push(`  - input: Capital of France? (${i})`, `    id: ${id}`);
    else lines.push(`  - id: ${id}`, `    input: Capital of France? (${i})`);
    lines.push(
      '    rubrics:',
      '      - id: names-paris',
      '        expected_outcome: Says Paris',
      '        required: true',
    );
  }
  writeFileSync(path.join(app, 'evals/capitals.yaml'), lines.join('\n') + '\n');
  const idLines = new Map(
    lines.flatMap((l, i) => {
      const m = /^\s*(?:- )?id: (case-\d+)$/.exec(l);
      return m ? [[m[1]!, i + 1] as const] : [];
    }),
  );
  return { root, idLines };
}

const inputs = (extra: Record<string, string> = {}) => ({
  suites: 'evals/*.yaml',
  'working-directory': 'app',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-e2e-judge-key-000111',
  'github-token': 'ghs_e2e_token_000111',
  'cache-dir': '',
  baseline: 'off',
  'check-run': 'true',
  ...extra,
});

test('~70 failing cases: one check run on the head sha, created then updated, 70 annotations at their id lines in batches of at most 50', async () => {
  judge = await startParisJudge();
  github = await startGitHubServer({});
  const { root, idLines } = repo(70, 5);
  const run = await runAction({
    workspace: root,
    inputs: inputs({ 'report-html': 'report.html' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(1);
  const sent = checkRunRequests();
  expect(sent.map((r) => r.method)).toEqual(['POST', 'PATCH']);
  expect(sent[0]!.body).toMatchObject({
    name: 'rubric-eval',
    // The pull request's head, not GITHUB_SHA (the merge commit).
    head_sha: PR_EVENT.pull_request.head.sha,
    status: 'in_progress',
    details_url: 'https://github.com/octo/repo/actions/runs/4242',
  });
  const [cr] = github.state.checks.checkRuns;
  expect(github.state.checks.checkRuns).toHaveLength(1);
  expect(cr!.batches).toEqual([50, 20]);
  expect(cr).toMatchObject({ status: 'completed', conclusion: 'failure', head_sha: 'abc1234def' });
  expect(cr!.output!.title).toBe('rubric-eval: fail · score 0.07 · 70 failing');
  expect(cr!.output!.summary).toContain('**75 cases:** 5 pass · 0 borderline · 70 fail');
  expect(cr!.output!.summary).toContain("`report.html` in [this run's artifacts]");
  expect(cr!.output!.text).toContain('case-69');
  const where = cr!.annotations.map((a) => [a.title, a.path, a.start_line, a.end_line, a.annotation_level]);
  expect(where.sort()).toEqual(
    [...idLines]
      .slice(0, 70)
      .map(([id, line]) => [id, 'app/evals/capitals.yaml', line, line, 'failure'])
      .sort(),
  );
  expect(cr!.annotations[0]!.message).toBe(
    'failed (score 0.00)\n- rubric › names-paris "Says Paris" (required): does not name Paris',
  );
  // The comment says where the HTML report is.
  expect(github.state.comments[0]!.body).toContain("`report.html` in [this run's artifacts]");
  expect(readFileSync(path.join(root, 'app/report.html'), 'utf8')).toContain('case-69');
}, 120_000);

test('a 403 (no checks: write) is a warning naming the permission; the verdict still decides the step', async () => {
  judge = await startParisJudge();
  github = await startGitHubServer({
    failures: [
      {
        method: 'POST',
        path: /\/check-runs$/,
        status: 403,
        times: 5,
        message: 'Resource not accessible by integration',
      },
    ],
  });
  const failing = await runAction({
    workspace: repo(2, 1).root,
    inputs: inputs(),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(failing.stdout).toContain(
    '::warning::GitHub refused the check run (HTTP 403): grant the workflow `permissions: checks: write`',
  );
  expect(failing.code).toBe(1);
  expect(github.state.checks.checkRuns).toHaveLength(0);
  const passing = await runAction({
    workspace: repo(0, 2).root,
    inputs: inputs(),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(passing.stdout).toContain('`permissions: checks: write`');
  expect(passing.code).toBe(0);
}, 120_000);

test('fail-on: never gives a neutral check run with every annotation in the create request', async () => {
  judge = await startParisJudge();
  github = await startGitHubServer({});
  const run = await runAction({
    workspace: repo(3, 1).root,
    inputs: inputs({ 'fail-on': 'never', 'status-context': 'evals / rubric' }),
    event: PR_EVENT,
    apiUrl: github.url,
  });
  expect(run.code).toBe(0);
  expect(checkRunRequests().map((r) => r.method)).toEqual(['POST']);
  expect(github.state.checks.checkRuns[0]).toMatchObject({
    name: 'evals / rubric',
    status: 'completed',
    conclusion: 'neutral',
    batches: [3],
  });
}, 120_000);
