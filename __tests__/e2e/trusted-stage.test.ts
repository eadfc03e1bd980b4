import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import {
  type FakeArtifact,
  type FakeGitHub,
  startGitHubServer,
} from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import {
  BASE,
  baseCheckout,
  bundle,
  DECOY,
  HEAD,
  JUDGE_KEY,
  judgeInputs as trustedInputs,
  markerScript,
  PR,
  recordArtifact,
  strictJudge,
  workflowRunEvent,
  zipOf,
} from '../helpers/trusted-stage.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * The trusted stage end to end through dist/index.js: `stage: record` on a fork's pull_request
 * (answers and gates into the bundle, no judge), then `stage: judge` on workflow_run at the base
 * checkout (the bundle downloaded through the fake Actions API, the pull request found by the
 * run's head commit, the base's suites judging, the comment and the commit status).
 */

let judge: FakeOpenAI;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  github = undefined;
});

/** The fork's checkout: a weakened rubric, a new case, its own target and gate. */
function prCheckout(root: string, markers: string, answers: Record<string, string>): string {
  const pr = path.join(root, 'pr');
  mkdirSync(path.join(pr, 'evals'), { recursive: true });
  writeFileSync(
    path.join(pr, 'evals/support.yaml'),
    [
      'evalcases:',
      '  - id: refund',
      '    input: How do I get a refund?',
      '    rubrics: [Answers politely]',
      '  - id: reset',
      '    input: How do I reset my password?',
      '    rubrics: [Answers politely]',
      '  - id: shipping',
      '    input: Where is my parcel?',
      '    rubrics: [Answers politely]',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(pr, 'answer.mjs'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(path.join(markers, 'pr-target'))}, 'ran');\nconst answers = ${JSON.stringify(answers)};\nconsole.log(answers[process.argv[2]] ?? 'no idea');\n`,
  );
  writeFileSync(
    path.join(pr, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: cli\n    command_template: node answer.mjs {EVAL_ID}\n',
  );
  markerScript(
    path.join(pr, 'gate.mjs'),
    path.join(markers, 'pr-gate'),
    'gate ok @octocat <img src=x onerror=alert(1)>',
  );
  writeFileSync(path.join(pr, 'RUBRIC.md'), '# Support\n\n## Gates\n- `node gate.mjs`\n');
  return pr;
}

const recordEvent = {
  action: 'synchronize',
  number: 12,
  pull_request: { number: 12, title: PR.title, body: PR.body, head: PR.head, base: PR.base },
};

const judgeInputs = () => trustedInputs(judge.url);

async function judgeStage(
  base: string,
  zip: Uint8Array | FakeArtifact[] | undefined,
  conclusion = 'success',
  inputs: Record<string, string> = {},
) {
  const artifacts = Array.isArray(zip) ? zip : recordArtifact(zip);
  github = await startGitHubServer({ artifacts, pulls: [DECOY, PR] });
  const run = await runAction({
    workspace: base,
    eventName: 'workflow_run',
    event: workflowRunEvent(conclusion),
    inputs: { ...judgeInputs(), ...inputs },
    apiUrl: github.url,
  });
  const results = JSON.parse(readFileSync(path.join(base, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  return { run, results, github };
}

/** The fork's checkout (GOOD only for refund) and the base's, side by side, with a markers folder. */
function checkouts() {
  const root = tmpDir('re-trusted-');
  const markers = path.join(root, 'markers');
  mkdirSync(markers);
  const pr = prCheckout(root, markers, {
    refund: 'GOOD: refunds within 30 days',
    reset: 'Click the link.',
    shipping: 'It is on its way',
  });
  return { pr, base: baseCheckout(root, markers), markers };
}

test("a fork's answers are recorded without a judge, then judged with the base branch's suites: comment on the right PR, status on the right sha", async () => {
  judge = await strictJudge();
  const { pr, base, markers } = checkouts();

  // 1. record, on the fork's pull_request: judge inputs set, yet no judge call, no comment.
  const rec = await runAction({
    workspace: pr,
    event: recordEvent,
    inputs: {
      stage: 'record',
      suites: 'evals/*.yaml',
      rubric: 'RUBRIC.md',
      'judge-base-url': judge.url,
      'judge-api-key': JUDGE_KEY,
    },
    apiUrl: 'http://127.0.0.1:9',
  });
  expect([rec.code, rec.stderr]).toEqual([0, '']);
  expect(judge.state.requests).toHaveLength(0);
  const text = readFileSync(path.join(pr, 'rubric-eval-record.json'), 'utf8');
  const recorded = JSON.parse(text) as {
    pr_number: number;
    head_sha: string;
    answers: { id: string; answer: string }[];
    gates: { command: string; exit_code: number; output: string }[];
  };
  expect(recorded).toMatchObject({
    record: 1,
    repository: 'octo/repo',
    pr_number: 12,
    head_sha: HEAD,
    base_sha: BASE,
  });
  expect(recorded.answers.map((a) => [a.id, a.answer])).toEqual([
    ['refund', 'GOOD: refunds within 30 days'],
    ['reset', 'Click the link.'],
    ['shipping', 'It is on its way'],
  ]);
  expect(recorded.gates).toEqual([
    expect.objectContaining({
      command: 'node gate.mjs',
      exit_code: 0,
      output: expect.stringContaining('gate ok'),
    }),
  ]);
  expect(existsSync(path.join(markers, 'pr-target'))).toBe(true);
  expect(existsSync(path.join(markers, 'pr-gate'))).toBe(true);
  expect(rec.summary).toContain('Nothing was judged here');

  // 2. judge, on workflow_run at the base checkout.
  const { run, results } = await judgeStage(base, zipOf(text));
  // The base's criteria judged, never the PR's weakened one: reset fails.
  const prompts = judge.state.requests.map((r) => JSON.stringify(r.body));
  expect(prompts.some((p) => p.includes('Says the reset link expires'))).toBe(true);
  expect(prompts.some((p) => p.includes('Answers politely'))).toBe(false);
  const cases = results.suites[0]!.cases;
  expect(cases.map((c) => [c.id, c.verdict, c.answered_by])).toEqual([
    ['refund', 'pass', 'record'],
    ['reset', 'fail', 'record'],
  ]);
  expect(results.verdict).toBe('fail');
  expect(results.trusted).toMatchObject({
    pr_number: 12,
    head_sha: HEAD,
    new_in_pr: ['evals/support.yaml#shipping'],
    unanswered: [],
    changed_files: ['evals/support.yaml'],
  });
  // Nothing of either checkout ran in the judge stage: the base's target and gate neither.
  expect(existsSync(path.join(markers, 'base-target'))).toBe(false);
  expect(existsSync(path.join(markers, 'base-gate'))).toBe(false);
  expect(results.rubric!.gates[0]).toMatchObject({ command: 'node gate.mjs', verdict: 'pass' });
  // The comment on PR 12 (not the decoy 11), the status on the head commit, pending first.
  const comments = github!.state.comments;
  expect(comments.map((c) => c.issue)).toEqual([12]);
  const body = comments[0]!.body;
  expect(body).toContain("judged with the base branch's suites");
  expect(body).toContain('new in this pull request, judged after merge');
  expect(body).toContain('evals/support.yaml#shipping');
  expect(body).not.toMatch(/<img/);
  const statuses = github!.state.trusted.statuses;
  expect(statuses.map((s) => [s.sha, s.state, s.context])).toEqual([
    [HEAD, 'pending', 'rubric-eval'],
    [HEAD, 'failure', 'rubric-eval'],
  ]);
  expect(statuses[1]!.description).toMatch(
    /^fail · score 0\.\d\d · 1 pass · 0 borderline · 1 fail \(base suites\)$/,
  );
  expect(statuses[1]!.target_url).toBe('https://github.com/octo/repo/actions/runs/4242');
  // The bundle came through the run's artifact list and its 302, without the token at storage.
  expect(github!.state.artifacts.downloads).toEqual([{ id: 901, authorization: null }]);
  // The pull request's files are listed once: the rubric's subject and the changed judged files share it.
  expect(github!.state.requests.filter((r) => r.path === '/repos/octo/repo/pulls/12/files')).toHaveLength(1);
  expect(run.code).toBe(1);
}, 180_000);

describe('a record run in shards, judged by one job', () => {
  /** Records shard i/n of the fork's run through dist/index.js; the bundle's text. */
  async function recordShard(pr: string, shard: string): Promise<string> {
    const rec = await runAction({
      workspace: pr,
      event: recordEvent,
      inputs: { stage: 'record', suites: 'evals/*.yaml', rubric: 'RUBRIC.md', shard },
      apiUrl: 'http://127.0.0.1:9',
    });
    expect([rec.code, rec.stderr]).toEqual([0, '']);
    expect(rec.summary).toContain(`shard ${shard}`);
    return readFileSync(path.join(pr, 'rubric-eval-record.json'), 'utf8');
  }
  const shardArtifacts = (texts: string[]) =>
    texts.flatMap((t, i) => recordArtifact(zipOf(t), `rubric-eval-record-${i + 1}`, 901 + i));

  test("every shard's bundle is downloaded and judged as one run: one comment, one status", async () => {
    judge = await strictJudge();
    const { pr, base } = checkouts();
    const one = await recordShard(pr, '1/2');
    const two = await recordShard(pr, '2/2');
    // Round-robin over the PR's plan: refund and shipping, then reset; the gate ran in shard 1 only.
    const ids = (t: string) => (JSON.parse(t) as { answers: { id: string }[] }).answers.map((a) => a.id);
    expect([ids(one), ids(two)]).toEqual([['refund', 'shipping'], ['reset']]);
    expect((JSON.parse(two) as { gates: unknown[] }).gates).toEqual([]);
    expect(judge.state.requests).toHaveLength(0);

    const { run, results } = await judgeStage(base, shardArtifacts([one, two]));
    expect(results.suites[0]!.cases.map((c) => [c.id, c.verdict, c.answered_by])).toEqual([
      ['refund', 'pass', 'record'],
      ['reset', 'fail', 'record'],
    ]);
    expect(results.rubric!.gates[0]).toMatchObject({ command: 'node gate.mjs', verdict: 'pass' });
    expect(results.trusted).toMatchObject({
      record_shards: 2,
      new_in_pr: ['evals/support.yaml#shipping'],
      unanswered: [],
    });
    expect(github!.state.artifacts.downloads.map((d) => d.id)).toEqual([901, 902]);
    expect(github!.state.comments.map((c) => c.issue)).toEqual([12]);
    expect(github!.state.comments[0]!.body).toContain('(2 shard jobs, merged here)');
    expect(github!.state.trusted.statuses.map((s) => s.state)).toEqual(['pending', 'failure']);
    expect(run.code).toBe(1);

    // A baseline file in this job's checkout is the base branch's, not the pull request's.
    copyFileSync(path.join(base, 'rubric-eval-results.json'), path.join(base, 'baseline.json'));
    await github!.close();
    const again = await judgeStage(base, shardArtifacts([one, two]), 'success', {
      baseline: 'baseline.json',
    });
    expect(again.results.baseline).toMatchObject({ file: 'baseline.json' });
    expect(again.results.baseline!.in_checkout).toBeUndefined();
    expect(again.github.state.comments[0]!.body).not.toContain('file in this PR');
  }, 180_000);

  test('a shard whose bundle is missing, or a case two shards answer: status error, naming it, nothing judged', async () => {
    judge = await strictJudge();
    const { pr, base } = checkouts();
    const one = await recordShard(pr, '1/2');
    const missing = await judgeStage(base, shardArtifacts([one]));
    expect(missing.results.errors).toEqual(['shard 2/2 missing']);
    expect(missing.github.state.trusted.statuses.map((s) => s.state)).toEqual(['pending', 'error']);
    await github!.close();
    github = undefined;

    // Shard 2's bundle claims shard 1's case too, with a better answer.
    const forged = JSON.parse(await recordShard(pr, '2/2')) as { answers: { id: string; answer: string }[] };
    forged.answers.push({ ...forged.answers[0]!, id: 'refund', answer: 'GOOD' });
    const twice = await judgeStage(base, shardArtifacts([one, JSON.stringify(forged)]));
    expect(twice.results.errors).toEqual([
      'shard 1/2 (rubric-eval-record-1) and shard 2/2 (rubric-eval-record-2) both hold an answer for case evals/support.yaml#refund',
    ]);
    expect(twice.results.verdict).toBe('fail');
    expect(twice.github.state.trusted.statuses.map((s) => s.state)).toEqual(['pending', 'error']);
    expect(judge.state.requests).toHaveLength(0);
  }, 180_000);
});

test('no code from a PR-looking folder runs in the judge stage: its gate, code judge and targets file stay unrun', async () => {
  judge = await strictJudge();
  const root = tmpDir('re-trusted-planted-');
  const markers = path.join(root, 'markers');
  mkdirSync(markers);
  const base = baseCheckout(root, markers);
  // What a workflow that also checked out the PR would leave in the workspace.
  const planted = path.join(base, 'pr-checkout');
  mkdirSync(path.join(planted, 'evals'), { recursive: true });
  markerScript(path.join(planted, 'gate.mjs'), path.join(markers, 'planted-gate'), 'x');
  markerScript(path.join(planted, 'judge.mjs'), path.join(markers, 'planted-code-judge'), '{"score":1}');
  markerScript(path.join(planted, 'target.mjs'), path.join(markers, 'planted-target'), 'x');
  writeFileSync(path.join(planted, 'RUBRIC.md'), '## Gates\n- `node gate.mjs`\n');
  writeFileSync(
    path.join(planted, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: cli\n    command_template: node target.mjs\n',
  );
  writeFileSync(
    path.join(planted, 'evals/support.yaml'),
    'evalcases:\n  - id: refund\n    input: q\n    evaluators:\n      - name: planted\n        type: code_judge\n        script: node judge.mjs\n',
  );
  const hostile = bundle({
    answers: [
      ...(bundle().answers as unknown[]),
      {
        suite: 'pr-checkout/evals/support.yaml',
        id: 'refund',
        answer: 'x',
        target: 'default',
        duration_ms: 1,
        usage: null,
        error: null,
      },
    ],
    gates: [
      { command: 'node gate.mjs', exit_code: 0, output: 'ok' },
      { command: 'node pr-checkout/gate.mjs', exit_code: 0, output: 'ok' },
    ],
  });
  const { results } = await judgeStage(base, zipOf(JSON.stringify(hostile)));
  for (const m of ['planted-gate', 'planted-code-judge', 'planted-target', 'base-gate', 'base-target'])
    expect([m, existsSync(path.join(markers, m))]).toEqual([m, false]);
  expect(results.trusted).toMatchObject({
    new_in_pr: ['pr-checkout/evals/support.yaml#refund'],
    extra_gates: ['node pr-checkout/gate.mjs'],
  });
  expect(results.verdict).toBe('pass');
  expect(github!.state.trusted.statuses.at(-1)!.state).toBe('success');
}, 180_000);

describe('hostile or missing bundles: status error, never success, and the reason named', () => {
  let base: string;
  beforeAll(() => {
    const root = tmpDir('re-trusted-hostile-');
    mkdirSync(path.join(root, 'markers'));
    base = baseCheckout(root, path.join(root, 'markers'));
  });

  // Every row has all four columns: jest passes `done` to a test whose function takes more.
  const cases: [string, () => Uint8Array | undefined, RegExp, string][] = [
    [
      "another pull request's number",
      () => zipOf(JSON.stringify(bundle({ pr_number: 99 }))),
      /names pull request #99/,
      'success',
    ],
    [
      'another commit',
      () => zipOf(JSON.stringify(bundle({ head_sha: 'b'.repeat(40) }))),
      /is for commit b{7}/,
      'success',
    ],
    [
      'two answers for one case',
      () =>
        zipOf(
          JSON.stringify(
            bundle({ answers: [...(bundle().answers as unknown[]), (bundle().answers as unknown[])[0]] }),
          ),
        ),
      /two answers for case evals\/support.yaml#refund/,
      'success',
    ],
    [
      'a 200 MB answer',
      () =>
        zipOf(
          JSON.stringify(
            bundle({
              answers: [
                {
                  suite: 'evals/support.yaml',
                  id: 'refund',
                  answer: 'A'.repeat(200 * 1024 * 1024),
                  target: null,
                  duration_ms: null,
                  usage: null,
                  error: null,
                },
              ],
            }),
          ),
        ),
      /over the 67108864 limit/,
      'success',
    ],
    ['a corrupt zip', () => strToU8('PK\u0003\u0004 this is not a zip'), /not a readable zip/, 'success'],
    ['no artifact at all', () => undefined, /uploaded no rubric-eval-record artifact/, 'success'],
    ['not JSON', () => zipOf('{"record": 1, '), /not JSON/, 'success'],
    [
      'a wrong schema',
      () =>
        zipOf(
          JSON.stringify(bundle({ answers: [{ suite: 'evals/support.yaml', id: 'refund', answer: 42 }] })),
        ),
      /answers\.0\.answer/,
      'success',
    ],
    [
      'a failed record run',
      () => zipOf(JSON.stringify(bundle())),
      /record run #555 ended failure/,
      'failure',
    ],
  ];

  test.each(cases)(
    '%s',
    async (_name, make, reason, conclusion) => {
      judge = await strictJudge();
      const { results, run } = await judgeStage(base, make(), conclusion);
      expect(results.verdict).toBe('fail');
      expect(results.errors.join('\n')).toMatch(reason);
      const statuses = github!.state.trusted.statuses;
      expect(statuses.map((s) => s.state)).toEqual(['pending', 'error']);
      expect(statuses.every((s) => s.sha === HEAD)).toBe(true);
      // Said on the pull request too, and the judge was never asked.
      expect(github!.state.comments.map((c) => c.issue)).toEqual([12]);
      expect(github!.state.comments[0]!.body).toMatch(/Nothing was judged/);
      expect(judge.state.requests).toHaveLength(0);
      expect(run.code).toBe(1);
    },
    180_000,
  );

  test("no pull request has the run's commit as its head: status error, no comment", async () => {
    judge = await strictJudge();
    github = await startGitHubServer({
      artifacts: recordArtifact(zipOf(JSON.stringify(bundle()))),
      pulls: [DECOY],
    });
    const run = await runAction({
      workspace: base,
      eventName: 'workflow_run',
      event: workflowRunEvent(),
      inputs: judgeInputs(),
      apiUrl: github.url,
    });
    const results = JSON.parse(
      readFileSync(path.join(base, 'rubric-eval-results.json'), 'utf8'),
    ) as RunResults;
    expect(results.errors.join('\n')).toMatch(/no open pull request has commit a1b2c3d/);
    expect(github.state.trusted.statuses.map((s) => s.state)).toEqual(['pending', 'error']);
    expect(github.state.comments).toHaveLength(0);
    expect(run.code).toBe(1);
  }, 180_000);

  test('mentions and HTML in answers and gate output reach the comment inert', async () => {
    judge = await strictJudge();
    const evil =
      'GOOD @octocat @org/team #12 <img src=x onerror=alert(1)> <script>x</script> https://evil.example';
    const hostile = bundle({
      answers: [
        {
          suite: 'evals/support.yaml',
          id: 'refund',
          answer: evil,
          target: 'default',
          duration_ms: 1,
          usage: null,
          error: null,
        },
        {
          suite: 'evals/support.yaml',
          id: 'reset',
          answer: null,
          target: 'default',
          duration_ms: 1,
          usage: null,
          error: `boom ${evil}`,
        },
      ],
      gates: [{ command: 'node gate.mjs', exit_code: 1, output: `failed ${evil}` }],
    });
    const { results } = await judgeStage(base, zipOf(JSON.stringify(hostile)));
    expect(results.suites[0]!.cases.map((c) => c.verdict)).toEqual(['pass', 'error']);
    expect(results.rubric!.gates[0]!.verdict).toBe('fail');
    const body = github!.state.comments[0]!.body;
    expect(body).toContain('boom');
    // Outside code (where GitHub renders and links nothing), no HTML, mention, reference or link is left.
    const prose = body.replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, '').replace(/(`+)[^`]*?\1/g, '');
    expect(prose).toContain('boom');
    expect(prose).not.toMatch(/<img|<script|@octocat|@org\/team|#12\b|https:\/\/evil/);
    expect(github!.state.trusted.statuses.at(-1)!.state).toBe('failure');
  }, 180_000);
});

test("a model-only target is answered by the judge stage from the head's case, read as data: a fabricated recorded answer is not judged", async () => {
  // One fake endpoint plays the app's model (chat) and the judge (checklists).
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode === 'chat')
        return desc.text.includes('PROMPT-V2') ? 'GOOD Rome (PROMPT-V2 seen)' : 'Paris';
      if (desc.mode !== 'checklist') return undefined;
      return {
        checks: desc.ids.map((id) => ({ id, satisfied: desc.text.includes('GOOD'), reasoning: 'as judged' })),
        overall_reasoning: 'judged',
      };
    },
  });
  const root = tmpDir('re-trusted-model-');
  const base = path.join(root, 'base');
  mkdirSync(path.join(base, 'evals'), { recursive: true });
  const suite = (question: string) =>
    `evalcases:\n  - id: capital\n    input: ${question}\n    rubrics: [Names the capital]\n`;
  writeFileSync(path.join(base, 'evals/model.yaml'), suite('What is the capital of France?'));
  writeFileSync(
    path.join(base, 'targets.yaml'),
    `targets:\n  - name: default\n    provider: openai\n    endpoint: ${judge.url}\n    api_key: \${{ APP_KEY }}\n    model: app-model\n`,
  );
  const recorded = bundle({
    answers: [
      {
        suite: 'evals/model.yaml',
        id: 'capital',
        answer: 'FABRICATED',
        target: 'default',
        duration_ms: 1,
        usage: null,
        error: null,
      },
    ],
    gates: [],
  });
  github = await startGitHubServer({
    artifacts: recordArtifact(zipOf(JSON.stringify(recorded))),
    pulls: [PR],
    // The head's version of the suite: the pull request changed the prompt.
    files: { [`octo/repo@${HEAD}:evals/model.yaml`]: suite('What is the capital of Italy? PROMPT-V2') },
  });
  const run = await runAction({
    workspace: base,
    eventName: 'workflow_run',
    event: workflowRunEvent(),
    inputs: { ...judgeInputs(), suites: 'evals/*.yaml', rubric: '' },
    env: { APP_KEY: 'app-key-123456' },
    apiUrl: github.url,
  });
  const results = JSON.parse(readFileSync(path.join(base, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  const c = results.suites[0]!.cases[0]!;
  expect([c.answered_by, c.verdict, c.answer]).toEqual(['judge', 'pass', 'GOOD Rome (PROMPT-V2 seen)']);
  // The app's model got the head's prompt with the workflow's key.
  const chat = judge.state.requests.find((r) => JSON.stringify(r.body).includes('PROMPT-V2'))!;
  expect(chat.headers.authorization).toBe('Bearer app-key-123456');
  expect(JSON.stringify(judge.state.requests.map((r) => r.body))).not.toContain('FABRICATED');
  expect(
    github.state.requests.some(
      (r) =>
        decodeURIComponent(r.path) === '/repos/octo/repo/contents/evals/model.yaml' && r.query.ref === HEAD,
    ),
  ).toBe(true);
  expect(github.state.trusted.statuses.at(-1)!.state).toBe('success');
  expect(run.code).toBe(0);
}, 180_000);

test("promptfoo code in the judge stage is the base's: the head's javascript assertion and transform never run", async () => {
  judge = await startOpenAIServer({
    respond: ({ desc }) => (desc.mode === 'chat' ? 'Paris' : undefined),
  });
  const root = tmpDir('re-trusted-pf-code-');
  const markers = path.join(root, 'markers');
  mkdirSync(markers);
  const base = path.join(root, 'base');
  mkdirSync(path.join(base, 'evals'), { recursive: true });
  const mark = (name: string) => JSON.stringify(path.join(markers, name));
  writeFileSync(
    path.join(base, 'evals/check.js'),
    `module.exports = (output) => { require('node:fs').writeFileSync(${mark('base-check')}, 'ran'); return output === 'Paris'; };\n`,
  );
  const suite = (assertion: string) =>
    `prompts: ['{{ q }}']\ntests:\n  - id: capital\n    vars: { q: 'What is the capital of France?' }\n    assert:\n      - ${assertion}\n`;
  writeFileSync(path.join(base, 'evals/model.yaml'), suite('{ type: javascript, value: file://check.js }'));
  writeFileSync(
    path.join(base, 'targets.yaml'),
    `targets:\n  - name: default\n    provider: openai\n    endpoint: ${judge.url}\n    api_key: \${{ APP_KEY }}\n    model: app-model\n`,
  );
  const head = suite(
    `{ type: javascript, value: 'require("node:fs").writeFileSync(${mark('head-js').replace(/'/g, "''")}, "ran") || true', transform: 'require("node:fs").writeFileSync(${mark('head-transform').replace(/'/g, "''")}, "ran") || output' }`,
  );
  const recorded = bundle({
    answers: [
      {
        suite: 'evals/model.yaml',
        id: 'capital',
        answer: 'Paris',
        target: 'default',
        duration_ms: 1,
        usage: null,
        error: null,
      },
    ],
    gates: [],
  });
  github = await startGitHubServer({
    artifacts: recordArtifact(zipOf(JSON.stringify(recorded))),
    pulls: [PR],
    files: { [`octo/repo@${HEAD}:evals/model.yaml`]: head },
  });
  const run = await runAction({
    workspace: base,
    eventName: 'workflow_run',
    event: workflowRunEvent(),
    inputs: { ...judgeInputs(), suites: 'evals/*.yaml', rubric: '' },
    env: { APP_KEY: 'app-key-123456' },
    apiUrl: github.url,
  });
  const results = JSON.parse(readFileSync(path.join(base, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  expect(results.errors).toEqual([]);
  const c = results.suites[0]!.cases[0]!;
  expect([c.verdict, c.evaluators[0]!.type, c.evaluators[0]!.verdict]).toEqual([
    'pass',
    'code_assertion',
    'pass',
  ]);
  expect(existsSync(path.join(markers, 'base-check'))).toBe(true);
  expect(existsSync(path.join(markers, 'head-js'))).toBe(false);
  expect(existsSync(path.join(markers, 'head-transform'))).toBe(false);
  expect(run.code).toBe(0);
}, 180_000);

test("check-run: true in stage judge: the check run is on the pull request's head commit, like the status", async () => {
  judge = await strictJudge();
  const { base } = checkouts();
  const answers = [
    { suite: 'evals/support.yaml', id: 'refund', answer: 'GOOD: within 30 days' },
    { suite: 'evals/support.yaml', id: 'reset', answer: 'Click the link.' },
  ].map((a) => ({ ...a, target: 'default', duration_ms: 5, usage: null, error: null }));
  const { run, github: gh } = await judgeStage(base, zipOf(JSON.stringify(bundle({ answers }))), 'success', {
    'check-run': 'true',
  });
  const status = gh.state.trusted.statuses.at(-1)!;
  const [checkRun] = gh.state.checks.checkRuns;
  expect(gh.state.checks.checkRuns).toHaveLength(1);
  expect(checkRun).toMatchObject({ name: 'rubric-eval', head_sha: HEAD, status: 'completed' });
  expect([status.sha, status.state, checkRun!.conclusion]).toEqual([HEAD, 'failure', 'failure']);
  expect(checkRun!.annotations.map((a) => [a.title, a.path])).toEqual([['reset', 'evals/support.yaml']]);
  expect(run.code).toBe(1);
}, 180_000);

test('a model-only case whose every answer fails is a fail and the status failure, never success (issue 43 item 5)', async () => {
  // The app's model always answers wrong; the judge meets the criterion only for GOOD answers.
  judge = await startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode === 'chat') return 'Paris';
      if (desc.mode !== 'checklist') return undefined;
      return {
        checks: desc.ids.map((id) => ({ id, satisfied: desc.text.includes('GOOD'), reasoning: 'as judged' })),
        overall_reasoning: 'judged',
      };
    },
  });
  const base = path.join(tmpDir('re-trusted-allfail-'), 'base');
  mkdirSync(path.join(base, 'evals'), { recursive: true });
  const suite =
    'evalcases:\n  - id: capital\n    input: What is the capital of Italy?\n    rubrics: [Names Rome]\n';
  writeFileSync(path.join(base, 'evals/model.yaml'), suite);
  writeFileSync(
    path.join(base, 'targets.yaml'),
    `targets:\n  - name: default\n    provider: openai\n    endpoint: ${judge.url}\n    api_key: \${{ APP_KEY }}\n    model: app-model\n`,
  );
  const recorded = bundle({
    answers: [
      {
        suite: 'evals/model.yaml',
        id: 'capital',
        answer: '',
        target: 'default',
        duration_ms: 1,
        usage: null,
        error: null,
      },
    ],
    gates: [],
  });
  github = await startGitHubServer({
    artifacts: recordArtifact(zipOf(JSON.stringify(recorded))),
    pulls: [PR],
    files: { [`octo/repo@${HEAD}:evals/model.yaml`]: suite },
  });
  const run = await runAction({
    workspace: base,
    eventName: 'workflow_run',
    event: workflowRunEvent(),
    inputs: { ...judgeInputs(), rubric: '', repeat: '3', 'min-case-pass-rate': '0.5' },
    env: { APP_KEY: 'app-key-123456' },
    apiUrl: github.url,
  });
  const results = JSON.parse(readFileSync(path.join(base, 'rubric-eval-results.json'), 'utf8')) as RunResults;
  const c = results.suites[0]!.cases[0]!;
  expect([c.answered_by, c.repeats, c.pass_rate, c.verdict]).toEqual(['judge', 3, 0, 'fail']);
  expect(results.counts).toMatchObject({ pass: 0, fail: 1 });
  const status = github.state.trusted.statuses.at(-1)!;
  expect(status.state).toBe('failure');
  expect(status.description).toContain('0 pass');
  expect(run.code).toBe(1);
}, 180_000);
