import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { startParisJudge } from '../helpers/paris-judge.js';
import { runCli } from '../helpers/cli.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';
import { agentvCorpusCopy } from '../helpers/corpus-copy.js';
import { CORPUS, FIXTURES, REPO_ROOT, corpusTest, describeCorpus } from '../helpers/paths.js';

let judge: FakeOpenAI | undefined;
afterEach(async () => {
  await judge?.close();
  judge = undefined;
});

/** The arguments of `npm run demo` (the README's first command), as the shell would split them. */
function demoArgs(): string[] {
  const script = (
    JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts.demo!;
  const words = [...script.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  expect(words.slice(0, 2)).toEqual(['node', 'dist/cli.js']);
  return words.slice(2);
}

test("the README's first command prints a report of the example suites with no network and no key", async () => {
  const r = await runCli(demoArgs());
  expect(r.stderr).toContain('the judge is RECORDED');
  expect(r.stdout).toContain('Rubric Support bot: refund flow (examples/RUBRIC.md): pass');
  expect(r.stdout).toMatch(/fail\s+0\.67\s+password-reset/);
  expect(r.stdout).toMatch(/Verdict: FAIL/);
  expect(r.stdout).toContain('0 judge calls (+6 cached)');
  expect(r.code).toBe(0);
});

describe('run', () => {
  test('table format, exit 1 when the verdict fails --fail-on, 0 with --fail-on never', async () => {
    judge = await startParisJudge();
    const repo = makeFixtureRepo({ answers: { 'capital-of-france': 'Lyon' } });
    const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-test-000000' };
    const r = await runCli(['run', 'evals/*.yaml', '--judge-base-url', judge.url, '--no-cache'], {
      cwd: repo,
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/fail\s+0\.50\s+capital-of-france\s+checklist 1\/2/);
    expect(r.stdout).toContain('rubric › names-paris "Says Paris" (required): does not name Paris');
    const never = await runCli(
      ['run', 'evals/*.yaml', '--judge-base-url', judge.url, '--no-cache', '--fail-on', 'never'],
      { cwd: repo, env },
    );
    expect(never.code).toBe(0);
  });

  test('markdown format is the PR comment report; json format and --out are the results file', async () => {
    judge = await startParisJudge();
    const repo = makeFixtureRepo();
    const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-test-000000' };
    const md = await runCli(
      ['run', 'evals/*.yaml', '--judge-base-url', judge.url, '--no-cache', '--format', 'markdown'],
      { cwd: repo, env },
    );
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^## ✅ rubric-eval: \*\*pass\*\* · score /);
    const json = await runCli(
      [
        'run',
        'evals/*.yaml',
        '--judge-base-url',
        judge.url,
        '--no-cache',
        '--format',
        'json',
        '--out',
        'out/results.json',
      ],
      { cwd: repo, env },
    );
    const printed = JSON.parse(json.stdout) as RunResults;
    const writtenText = readFileSync(path.join(repo, 'out/results.json'), 'utf8');
    const written = JSON.parse(writtenText) as RunResults;
    expect(printed.verdict).toBe('pass');
    // Serialised once, written twice: the same text.
    expect(json.stdout).toBe(writtenText);
    expect(written.suites[0]!.cases.map((c) => c.id)).toEqual(['capital-of-france', 'explain-quicksort']);
  });

  test('invalid input exits 2; unknown flags exit 2; --help works on every command', async () => {
    const bad = await runCli([
      'run',
      '__fixtures__/invalid/ranges.yaml',
      '--judge-replay',
      'examples/recorded-judge',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('overlap: [3, 6] overlaps [5, 7]');
    const flag = await runCli(['run', 'x.yaml', '--frobnicate']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--frobnicate'/);
    // A value pasted by mistake is quoted cut short, not echoed whole.
    const pasted = await runCli(['run', 'x.yaml', '--fail-on', 'x'.repeat(5000), `--${'y'.repeat(5000)}`]);
    expect(pasted.code).toBe(2);
    expect(pasted.stderr).toMatch(/more characters\)/);
    expect(pasted.stderr.length).toBeLessThan(1000);
    for (const args of [
      ['--help'],
      ['run', '--help'],
      ['validate', '--help'],
      ['generate', 'rubrics', '--help'],
    ]) {
      const h = await runCli(args);
      expect(h.code).toBe(0);
      expect(h.stdout).toMatch(/Usage/);
    }
    expect((await runCli(['bogus'])).code).toBe(2);
  });
});

test("a local judge with no key: the second run is served from the cache in the user's cache folder, outside the checkout", async () => {
  judge = await startParisJudge();
  const repo = makeFixtureRepo();
  const home = tmpDir('re-cli-home-');
  const run = () =>
    runCli(['run', 'evals/*.yaml', '--judge-base-url', judge!.url, '--judge-model', 'llama3.1'], {
      cwd: repo,
      env: { HOME: home },
    });
  const first = await run();
  expect(first.code).toBe(0);
  const calls = judge.state.requests.length;
  expect(calls).toBeGreaterThan(0);
  const second = await run();
  expect(second.code).toBe(0);
  expect(judge.state.requests.length).toBe(calls);
  expect(second.stderr).not.toContain('judge cache');
  expect(readdirSync(path.join(home, '.cache/rubric-eval')).length).toBeGreaterThan(0);
  expect(readdirSync(repo)).not.toContain('.rubric-eval-cache');
});

describeCorpus('validate', () => {
  test('the corpus is valid with its judge scripts: exit 0', async () => {
    const root = agentvCorpusCopy();
    cpSync(path.join(CORPUS, 'scope'), path.join(root, 'scope'), { recursive: true });
    const r = await runCli(['validate', '*/evals/*.yaml', '--rubric', 'scope/search-feature-rubric.md'], {
      cwd: root,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The targets' ${{ VAR }}s are not set here: warned about once per target, not errors; a
    // target's judge_target is ignored (one judge per run, the workflow's), said at its line.
    const lines = r.stdout.trim().split('\n');
    expect(lines.pop()).toBe('ok: 5 suites, 18 cases, 1 rubric');
    expect(lines).toHaveLength(4);
    for (const l of lines)
      expect(l).toMatch(
        / warning: target '\w+': (missing-env: environment variables? AZURE_|judge-target-ignored: judge_target 'azure_base' is ignored)/,
      );
    expect(lines.filter((l) => l.includes('judge-target-ignored'))).toHaveLength(2);
  });
  test('bad files: exit 2 and every problem listed with file:line:col and rule', async () => {
    const r = await runCli(['validate', 'invalid/*.yaml', 'invalid/*.jsonl'], { cwd: FIXTURES });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(14);
    expect(lines).toContain(
      "invalid/ranges.yaml:11:26 rubric 'factual_accuracy': overlap: [3, 6] overlaps [5, 7]",
    );
    expect(lines).toContain("invalid/types.yaml:11:5 case 2: required: missing required field 'id'");
    expect(r.stdout).toBe('14 errors in 6 file(s)\n');
  });
});

describeCorpus('generate rubrics', () => {
  test('adds rubrics only to summary-task; every other line is byte-identical', async () => {
    judge = await startOpenAIServer({
      respond: () => ({
        rubrics: [
          {
            id: 'under-50-words',
            expected_outcome: 'The summary is under 50 words',
            weight: 2,
            required: true,
          },
          {
            id: 'key-points',
            expected_outcome: 'Covers Arctic ice loss, rising seas and extreme weather',
            weight: 2,
            required: true,
          },
          {
            id: 'call-to-action',
            expected_outcome: "Mentions scientists' call for emission cuts and renewables",
            weight: 1,
            required: false,
          },
        ],
      }),
    });
    const dir = tmpDir('re-gen-');
    mkdirSync(path.join(dir, 'evals'));
    const file = path.join(dir, 'evals/dataset.yaml');
    copyFileSync(path.join(CORPUS, 'agentv/rubric/evals/dataset.yaml'), file);
    // The suite's code judge, which the corpus does not ship: our stand-in, so the suite is valid.
    copyFileSync(
      path.join(FIXTURES, 'corpus-scripts/agentv/rubric/evals/check_syntax.py'),
      path.join(dir, 'evals/check_syntax.py'),
    );
    const before = readFileSync(file, 'utf8');
    const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-gen-000000' };

    // --dry-run prints the diff and leaves the file alone.
    const dryRun = await runCli(
      ['generate', 'rubrics', 'evals/dataset.yaml', '--dry-run', '--judge-base-url', judge.url],
      { cwd: dir, env },
    );
    expect(dryRun.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(dryRun.stdout).toMatch(
      /^--- a\/evals\/dataset.yaml\n\+\+\+ b\/evals\/dataset.yaml\n@@ -176,0 \+177,14 @@\n\+\n\+ {4}rubrics:\n/,
    );

    const r = await runCli(['generate', 'rubrics', 'evals/dataset.yaml', '--judge-base-url', judge.url], {
      cwd: dir,
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('added rubrics to 1 case in evals/dataset.yaml: summary-task\n');
    const after = readFileSync(file, 'utf8');
    // Removing the inserted block (a blank line, then `rubrics:`) gives back the original, byte for byte.
    const inserted = /\n {4}rubrics:\n(?: {6}.*\n)+/.exec(after.slice(after.indexOf('id: summary-task')))![0];
    expect(after.replace(inserted, '')).toBe(before);
    expect(inserted).toContain('- id: under-50-words');
    // Only summary-task got rubrics; the file still loads and validates (with the corpus's targets).
    mkdirSync(path.join(dir, '.agentv'));
    copyFileSync(path.join(CORPUS, 'agentv/.agentv/targets.yaml'), path.join(dir, '.agentv/targets.yaml'));
    const check = await runCli(['validate', 'evals/dataset.yaml'], { cwd: dir });
    expect(check.code).toBe(0);
    // A second run finds nothing to do.
    const again = await runCli(['generate', 'rubrics', 'evals/dataset.yaml', '--judge-base-url', judge.url], {
      cwd: dir,
      env,
    });
    expect(again.stdout).toContain('no case needs rubrics');
    // One judge call per case needing rubrics, per generating run (the dry run and the real one).
    expect(judge.state.requests.length).toBe(2);
  });
});

test('generate rubrics --target takes the model from targets.yaml', async () => {
  judge = await startOpenAIServer({
    respond: () => ({
      rubrics: [
        { id: 'a', expected_outcome: 'A', weight: 1, required: true },
        { id: 'b', expected_outcome: 'B', weight: 1, required: false },
        { id: 'c', expected_outcome: 'C', weight: 0.5, required: false },
      ],
    }),
  });
  const dir = tmpDir('re-gen-target-');
  mkdirSync(path.join(dir, 'evals'));
  writeFileSync(
    path.join(dir, 'evals/s.yaml'),
    'evalcases:\n  - id: x\n    expected_outcome: Says hello\n    input: hi\n',
  );
  writeFileSync(
    path.join(dir, 'targets.yaml'),
    `targets:\n  - name: writer\n    provider: openai\n    endpoint: ${judge.url}\n    api_key: \${{ WRITER_KEY }}\n    model: writer-model\n`,
  );
  const r = await runCli(['generate', 'rubrics', 'evals/s.yaml', '--target', 'writer'], {
    cwd: dir,
    env: { WRITER_KEY: 'wk-000000' },
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(judge.state.requests[0]!.body.model).toBe('writer-model');
  expect(judge.state.requests[0]!.headers.authorization).toBe('Bearer wk-000000');
  expect(readFileSync(path.join(dir, 'evals/s.yaml'), 'utf8')).toContain('    rubrics:\n      - id: a\n');
});

corpusTest('a copy of the corpus local-cli suite validates from its own folder', async () => {
  const dir = agentvCorpusCopy();
  const r = await runCli(['validate', 'local-cli/evals/dataset.yaml'], { cwd: dir });
  expect(r.code).toBe(0);
});
