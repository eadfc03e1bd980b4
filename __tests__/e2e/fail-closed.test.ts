import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

// The four findings of issue 19, end to end through dist/cli.js and dist/index.js.

let judge: FakeOpenAI | undefined;
afterEach(async () => {
  await judge?.close();
  judge = undefined;
});

/** A judge that passes everything: whatever fails below, the judge did not cause it. */
const passingJudge = () =>
  startOpenAIServer({ respond: () => ({ score: 1, hits: ['fine'], misses: [], reasoning: 'fine' }) });

function workspace(files: Record<string, string>): string {
  const root = tmpDir('re-failclosed-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const TARGETS = 'targets:\n  - name: default\n    provider: mock\n    response: "The answer is 4."\n';
const suite = (evaluators: string) =>
  `evalcases:\n  - id: math\n    input: What is 2+2?\n    expected_outcome: Says 4\n    execution:\n      evaluators:\n${evaluators}`;
/** The reproduction: a broken code judge at weight 0.1 beside a passing llm_judge at 0.9. */
const crashing = (script: string) =>
  suite(
    `        - name: keywords\n          type: code_judge\n          script: ${script}\n          weight: 0.1\n        - name: quality\n          type: llm_judge\n          weight: 0.9\n`,
  );

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('1. a code judge that cannot run fails the case as error', () => {
  test('CLI: a crash mid-run is error, the run fails, the reason names the script, exit code and output', async () => {
    judge = await passingJudge();
    const root = workspace({
      'targets.yaml': TARGETS,
      'evals/s.yaml': crashing('[node, judges/keywords.mjs]'),
      'evals/judges/keywords.mjs': 'console.error("TypeError: boom in keywords"); process.exit(3);\n',
    });
    const r = await runCli(['run', 'evals/s.yaml', '--judge-base-url', judge.url, '--out', 'out.json'], {
      cwd: root,
      env: { OPENAI_API_KEY: 'sk-test-000000' },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "keywords: error: script 'node judges/keywords.mjs' exit code 3 without a result: TypeError: boom in keywords",
    );
    const results = JSON.parse(readFileSync(path.join(root, 'out.json'), 'utf8')) as RunResults;
    expect(results.counts).toEqual({ pass: 0, borderline: 0, fail: 0, error: 1 });
    expect(results.verdict).toBe('fail');
    expect(results.suites[0]!.cases[0]).toMatchObject({ verdict: 'error', score: 0.9 });
  });

  test('CLI: a script that is not there stops the run before any model call, at file:line', async () => {
    judge = await passingJudge();
    const root = workspace({
      'targets.yaml': TARGETS,
      'evals/s.yaml': crashing('[node, does-not-exist.mjs]'),
    });
    const r = await runCli(['run', 'evals/s.yaml', '--judge-base-url', judge.url], {
      cwd: root,
      env: { OPENAI_API_KEY: 'sk-test-000000' },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      "evals/s.yaml:9:19 case 'math' evaluator 'keywords': missing-file: code_judge script 'does-not-exist.mjs' not found (looked for evals/does-not-exist.mjs)",
    );
    expect(judge.state.requests).toHaveLength(0);
  });

  test('action: error in the outputs, an annotation at the case line with the reason, the summary, a failed step', async () => {
    judge = await passingJudge();
    const root = workspace({
      'targets.yaml': TARGETS,
      'evals/s.yaml': crashing('[node, -e, "console.log(\'looks good\')"]'),
    });
    const r = await runAction({
      workspace: root,
      inputs: {
        suites: 'evals/*.yaml',
        'judge-api-key': 'sk-test-000000',
        'judge-base-url': judge.url,
        comment: 'off',
      },
      eventName: 'push',
    });
    expect(r.code).toBe(1);
    expect(r.outputs.verdict).toBe('fail');
    expect(r.outputs.failed).toBe('1');
    const reason = `script 'node -e console.log('looks good')' did not print a JSON object with a numeric "score": looks good`;
    expect(r.stdout).toContain(
      `::error title=rubric-eval%3A case errored,file=evals/s.yaml,line=2::case 'math' errored: keywords: error: ${reason}`,
    );
    expect(r.summary).toContain(`keywords: error: ${reason}`);
    expect(r.stdout).toMatch(/::error::rubric-eval: fail \(score 0\.90\): 1 errored/);
  });
});

describe('2. a typo in a gating key is an error with did-you-mean at file:line', () => {
  const typo =
    'evalcases:\n  - id: outage\n    input: What happened?\n    rubrics:\n      - id: accuracy\n        required_min_scroe: 7\n        score_ranges:\n          0: Wrong\n          7: Right\n';

  test('CLI: validate and run both refuse it', async () => {
    const root = workspace({ 'targets.yaml': TARGETS, 'evals/s.yaml': typo });
    const line =
      "evals/s.yaml:6:9 rubric 'accuracy': unknown-key: unknown field 'required_min_scroe': did you mean 'required_min_score'?";
    const v = await runCli(['validate', 'evals/s.yaml'], { cwd: root });
    expect(v.code).toBe(2);
    expect(v.stderr).toBe(`${line}\n`);
    const r = await runCli(['run', 'evals/s.yaml'], { cwd: root, env: { OPENAI_API_KEY: 'sk-test-000000' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(line);
  });

  test('action: the step fails with an annotation at the key', async () => {
    const root = workspace({ 'targets.yaml': TARGETS, 'evals/s.yaml': typo });
    const r = await runAction({
      workspace: root,
      inputs: { suites: 'evals/*.yaml', 'judge-api-key': 'sk-test-000000', comment: 'off' },
      eventName: 'push',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "::error title=rubric-eval%3A unknown-key,file=evals/s.yaml,line=6,col=9::rubric 'accuracy': unknown field 'required_min_scroe': did you mean 'required_min_score'?",
    );
  });
});

describe("3. validate is run's pre-flight", () => {
  test('--targets: an unknown target, a duplicate id behind another error, an answer for no case', async () => {
    const root = workspace({
      'ci/targets.yaml': TARGETS,
      'evals/a.yaml': 'execution:\n  target: defualt\nevalcases:\n  - id: x\n    input: hi\n',
      'evals/b.yaml': 'evalcases:\n  - id: y\n    input: hi\n  - id: y\n    input: 42\n',
    });
    const r = await runCli(['validate', 'evals/*.yaml', '--targets', 'ci/targets.yaml'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      "evals/b.yaml:4:9 case 'y': duplicate-id: case id 'y' is already used by case 1",
      "evals/b.yaml:5:12 case 'y': type: input must be a string (one user message) or a list of {role, content} messages",
      "evals/a.yaml:4:5 execution.target (1 case): unknown-target: target 'defualt' is not defined in ci/targets.yaml; did you mean 'default'? (defined: default)",
    ]);
    expect(r.stdout).toBe('3 errors in 2 file(s)\n');

    // No targets file in reach: a run may still be given one, so validate only warns.
    const alone = workspace({ 'evals/s.yaml': 'evalcases:\n  - id: x\n    input: hi\n' });
    const w = await runCli(['validate', 'evals/s.yaml'], { cwd: alone });
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/^evals\/s\.yaml:2:5 warning: case 'x': no-targets: no targets\.yaml/);

    writeFileSync(path.join(root, 'answers.jsonl'), '{"eval_id": "z", "candidate_answer": "hello"}\n');
    const a = await runCli(['validate', 'evals/a.yaml', '--answers', 'answers.jsonl'], { cwd: root });
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(
      "evals/a.yaml:4:5 warning: case 'x': no-answer: no answer for this case in answers-file answers.jsonl: it will be an error\nanswers.jsonl:1:1 warning: unknown-case: answer for 'z' matches no case\nok: 1 suite, 1 case\n",
    );
  });

  test('action: the target input naming no target fails before any call', async () => {
    judge = await passingJudge();
    const root = workspace({
      'targets.yaml': TARGETS,
      'evals/s.yaml': 'evalcases:\n  - id: x\n    input: hi\n',
    });
    const r = await runAction({
      workspace: root,
      inputs: {
        suites: 'evals/*.yaml',
        target: 'defualt',
        'judge-api-key': 'sk-0000000',
        'judge-base-url': judge.url,
        comment: 'off',
      },
      eventName: 'push',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("target 'defualt' is not defined in targets.yaml; did you mean 'default'?");
    expect(judge.state.requests).toHaveLength(0);
  });
});

describe('4. an unreachable judge fails fast, naming the URL and the model', () => {
  const cases = Array.from({ length: 6 }, (_, i) => `  - id: c${i}\n    input: q${i}\n`).join('');
  const files = { 'targets.yaml': TARGETS, 'evals/s.yaml': `evalcases:\n${cases}` };

  test('CLI: under 10 s, every case error, the fix told once in CLI words', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const root = workspace(files);
    const started = Date.now();
    const r = await runCli(['run', 'evals/s.yaml', '--judge-base-url', url, '--judge-model', 'llama3.1'], {
      cwd: root,
      env: { OPENAI_API_KEY: 'sk-test-000000' },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.code).toBe(1);
    const said = `cannot reach ${url} (model llama3.1): connection refused (ECONNREFUSED)`;
    expect(r.stderr.split('\n').filter((l) => l.includes('is the judge running'))).toEqual([
      `warning: the judge failed: ${said}; is the judge running at ${url}? set --judge-base-url`,
    ]);
    expect(r.stdout).toContain(said);
    expect(r.stdout).toMatch(/0 pass · 0 borderline · 0 fail · 6 error/);
  });

  test('action: under 10 s, the step fails and the summary names the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runAction({
      workspace: workspace(files),
      inputs: {
        suites: 'evals/*.yaml',
        'judge-api-key': 'sk-test-000000',
        'judge-base-url': url,
        comment: 'off',
      },
      eventName: 'push',
    });
    expect(r.durationMs).toBeLessThan(10_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`is the judge running at ${url}? set \`judge-base-url\``);
    // The summary quotes the error inert: the URL reads the same but is not a link (an invisible
    // joiner after the scheme's colon).
    expect(r.summary.replace(/\u200d/g, '')).toContain(`cannot reach ${url} (model gpt-4.1-mini)`);
  });
});

describe('the CLI speaks CLI', () => {
  test('credentials name its variables; an unknown flag gets a suggestion; warnings say warning: once', async () => {
    const root = workspace({
      'targets.yaml': TARGETS,
      'evals/s.yaml': 'evalcases:\n  - id: x\n    input: hi\n    flavour: vanilla\n',
    });
    const noKey = await runCli(['run', 'evals/s.yaml'], { cwd: root });
    expect(noKey.code).toBe(2);
    expect(noKey.stdout).toContain(
      'no judge credentials: set RUBRIC_EVAL_JUDGE_API_KEY (or OPENAI_API_KEY) (with --judge-base-url for a non-OpenAI endpoint), or give GITHUB_TOKEN to judge with GitHub Models',
    );
    const flag = await runCli(['run', 'evals/s.yaml', '--ot', 'r.json'], { cwd: root });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("rubric-eval: unknown option '--ot': did you mean --out?");
    judge = await passingJudge();
    const r = await runCli(['run', 'evals/s.yaml', '--judge-base-url', judge.url], {
      cwd: root,
      env: { OPENAI_API_KEY: 'sk-test-000000' },
    });
    expect(r.stderr).toContain(
      "warning: evals/s.yaml:4:5 case 'x': unknown-key: unknown field 'flavour' is ignored\n",
    );
    expect(r.stderr).not.toMatch(/warning:.*warning:/);
  });
});
