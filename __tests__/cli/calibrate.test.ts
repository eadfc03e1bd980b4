import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runCli } from '../../src/cli/run-cli.js';
import { agreeingLabels, disagreeingLabels, rangeLabels } from '../helpers/calibration-labels.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startParisJudge();
});
afterEach(() => judge.close());

async function cli(cwd: string, argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli({
    argv,
    cwd,
    env: { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-test-judge-0000' },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

function repoWithLabels(lines: string[]): string {
  const root = makeFixtureRepo();
  writeFileSync(path.join(root, 'evals/labels.jsonl'), `${lines.join('\n')}\n`);
  return root;
}

const args = (extra: string[] = []) => [
  'calibrate',
  'evals/*.yaml',
  '--labels',
  'evals/labels.jsonl',
  '--judge-base-url',
  judge.url,
  ...extra,
];

test('per check and pooled, worst first, as JSON; a re-run makes no judge call', async () => {
  const root = repoWithLabels([...disagreeingLabels(), ...rangeLabels()]);
  const first = await cli(root, args(['--format', 'json']));
  expect(first.stderr).toContain('calibrate: 22 judge calls (+0 cached)');
  expect(first.code).toBe(0);
  const report = JSON.parse(first.stdout);
  expect(report.labels).toBe(22);
  expect(report.rows.map((r: { check: string }) => r.check)).toEqual(['names-paris', 'accuracy', 'concise']);
  const [paris, accuracy, concise] = report.rows;
  // 3 / 3 / 3 / 3 (helpers/calibration-labels.ts): p_o 0.5, p_e 0.5, κ 0.
  expect(paris).toMatchObject({
    suite: 'evals/qa.yaml',
    id: 'capital-of-france',
    n: 12,
    agreement: 0.5,
    tpr: 0.5,
    tnr: 0.5,
  });
  expect(paris.kappa).toBeCloseTo(0, 3);
  expect(paris).toMatchObject({ judge_yes_human_no: 3, judge_no_human_yes: 3 });
  expect(accuracy).toMatchObject({
    id: 'explain-quicksort',
    n: 10,
    judge_yes_human_no: 2,
    judge_no_human_yes: 1,
  });
  expect(accuracy.weighted_kappa).toBeCloseTo(0, 3);
  expect(accuracy.mae).toBeCloseTo(0.3, 3);
  expect(concise).toMatchObject({ n: 12, agreement: 1, kappa: null, tnr: null });
  expect(concise.kappa_note).toMatch(/undefined/);
  // Pooled checklist pairs: 24, judge yes & human yes 15, 3, 3, 3: p_o 0.75, p_e 0.625, κ 1/3.
  expect(report.overall.n).toBe(24);
  expect(report.overall.kappa).toBeCloseTo(0.333, 3);

  const again = await cli(root, args(['--format', 'json']));
  expect(again.stderr).toContain('calibrate: 0 judge calls (+22 cached)');
  expect(JSON.parse(again.stdout).rows).toEqual(report.rows);
});

test('table and markdown; --min-judge-agreement exits 1 naming the check', async () => {
  const root = repoWithLabels(disagreeingLabels());
  const table = await cli(root, args(['--min-judge-agreement', '0.6']));
  expect(table.code).toBe(1);
  expect(table.stdout.split('\n')[2]).toMatch(
    /^evals\/qa\.yaml › capital-of-france › names-paris\s+12\s+50%\s+0\.00 \[/,
  );
  expect(table.stdout).toMatch(/overall \(checklist items pooled\)\s+24\s+75%\s+0\.33/);
  expect(table.stderr).toMatch(
    /below min-judge-agreement: .*names-paris: κ 0\.00 .* over 12 labels is below min-judge-agreement 0\.6/,
  );
  const md = await cli(root, args(['--format', 'markdown']));
  expect(md.code).toBe(0);
  expect(md.stdout).toContain('| evals/qa.yaml › capital-of-france › names-paris | 12 | 50% |');
});

test('--disagreements: the answers to re-label, as label lines that read back', async () => {
  const root = repoWithLabels([...disagreeingLabels(), ...agreeingLabels()]);
  const r = await cli(root, args(['--disagreements']));
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(6);
  expect(lines[0]).toEqual({
    suite: 'evals/qa.yaml',
    id: 'capital-of-france',
    answer: 'Paris, Texas, is the capital.',
    labels: { 'names-paris': false },
    judge: { 'names-paris': true },
    rater: 'ana',
    from: 'evals/labels.jsonl:4',
  });
  writeFileSync(path.join(root, 'evals/labels.jsonl'), r.stdout);
  expect((await cli(root, args())).code).toBe(0);
});

test('fewer than 10 labels: no κ, and it says so', async () => {
  const root = repoWithLabels(agreeingLabels().slice(0, 5));
  const r = await cli(root, args(['--format', 'json']));
  const paris = JSON.parse(r.stdout).rows.find((x: { check: string }) => x.check === 'names-paris');
  expect(paris).toMatchObject({ n: 5, kappa: null, kappa_note: '5 labels; κ needs at least 10' });
});

test('a bad labels file: every problem named at file:line, exit 2, nothing judged', async () => {
  const root = repoWithLabels([
    '{"suite": "evals/qa.yaml", "id": "capital-of-france", "answer": "Paris", "labels": {"names-pariss": true}}',
    'not json',
    '{"suite": "evals/qa.yaml", "id": "nope", "answer": "x", "labels": {"concise": true}}',
    '{"suite": "evals/qa.yaml", "id": "explain-quicksort", "answer": "x", "labels": {"accuracy": true}}',
    '{"suite": "evals/qa.yaml", "id": "capital-of-france", "answer": "x", "labels": {"concise": 11}}',
    '{"suite": "evals/other.yaml", "id": "capital-of-france", "answer": "x", "labels": {"concise": true}}',
  ]);
  const r = await cli(root, args());
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(
    "evals/labels.jsonl:1:1 unknown-check: case 'capital-of-france' has no rubric item 'names-pariss' (did you mean 'names-paris'?)",
  );
  expect(r.stderr).toContain('evals/labels.jsonl:2:1 json: not valid JSON');
  expect(r.stderr).toContain("evals/labels.jsonl:3:1 unknown-case: suite evals/qa.yaml has no case 'nope'");
  expect(r.stderr).toContain("evals/labels.jsonl:4:1 label-type: 'accuracy' is a 0-10 range criterion");
  expect(r.stderr).toContain(
    "evals/labels.jsonl:5:1 label: label 'concise' must be true, false or an integer 0..10 (got 11)",
  );
  expect(r.stderr).toContain("evals/labels.jsonl:6:1 unknown-suite: no loaded suite 'evals/other.yaml'");
  expect(judge.state.served).toBe(0);
});

test('run --calibration --min-judge-agreement: the same advisory rule as the action', async () => {
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is Lyon.' } });
  writeFileSync(path.join(root, 'evals/labels.jsonl'), `${disagreeingLabels().join('\n')}\n`);
  const run = (extra: string[]) =>
    cli(root, [
      'run',
      'evals/*.yaml',
      '--judge-base-url',
      judge.url,
      '--calibration',
      'evals/labels.jsonl',
      ...extra,
    ]);
  const advisory = await run(['--min-judge-agreement', '0.6', '--format', 'json']);
  expect(advisory.code).toBe(0);
  expect(JSON.parse(advisory.stdout).calibration.below_floor).toHaveLength(1);
  const fails = await run(['--min-judge-agreement', '0.6', '--fail-on', 'calibration']);
  expect(fails.code).toBe(1);
  // The terminal shows the comment's calibration line, and why the check does what it does.
  expect(fails.stdout).toContain(
    'judge agreement: κ 0.33 over 12 labels; 1 check below min-judge-agreement 0.6 (fail-on: calibration)\n' +
      '  evals/qa.yaml › capital-of-france › names-paris fails the check: κ 0.00 (95% ',
  );
  const shown = await run(['--min-judge-agreement', '0.6']);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(
    /judge agreement: κ 0\.33 over 12 labels; 1 check advisory\n {2}evals\/qa\.yaml › capital-of-france › names-paris is advisory \(shown, not gating\): κ 0\.00 \(95% -?\d\.\d\d\.\.\d\.\d\d\) over 12 labels is below min-judge-agreement 0\.6\n/,
  );
  expect((await run([])).code).toBe(1);
});
