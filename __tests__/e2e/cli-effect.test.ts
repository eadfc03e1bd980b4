import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type RunResults } from '../../src/core/results.js';
import { resultsOf } from '../helpers/results.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

/** `compare --format json` prints the effect; `plan` sizes a suite from a baseline (dist/cli.js). */

interface Case {
  verdict: 'pass' | 'fail';
  score: number;
  answers?: { verdict: 'pass' | 'fail'; score: number }[];
}

function resultsFile(dir: string, name: string, cases: Case[]): string {
  const file = path.join(dir, name);
  const r = resultsOf(
    cases.map((c, i) => ['evals/qa.yaml', `c${i}`, c.verdict, c.score, '0123456789abcdef']),
  );
  r.suites[0]!.cases.forEach((c, i) => {
    const answers = cases[i]!.answers;
    if (!answers) return;
    c.repeats = answers.length;
    c.pass_rate = answers.filter((a) => a.verdict === 'pass').length / answers.length;
    c.answers = answers.map((a, k) => ({
      repeat: k + 1,
      ...a,
      gating_violations: [],
      evaluators: [],
      answer: null,
    }));
  });
  writeFileSync(file, JSON.stringify(r));
  return file;
}

const passing = (n: number, rate: number): Case[] =>
  Array.from({ length: n }, (_, i) =>
    i < n * rate ? { verdict: 'pass', score: 0.9 } : { verdict: 'fail', score: 0.3 },
  );

test('compare --format json prints the effect; --effect-margin sets its margin; fail-on effect fails on it', async () => {
  const dir = tmpDir('re-cli-effect-');
  const base = resultsFile(dir, 'base.json', passing(60, 1));
  const head = resultsFile(dir, 'head.json', passing(60, 0.7));
  const json = await runCli([
    'compare',
    base,
    head,
    '--format',
    'json',
    '--fail-on',
    'never',
    '--effect-margin',
    '0.1',
  ]);
  expect(json.stderr).toBe('');
  expect(json.code).toBe(0);
  const r = JSON.parse(json.stdout) as RunResults;
  expect(r.effect!.margin).toBe(0.1);
  expect(r.effect!.overall.map((e) => [e.metric, e.n, e.base_mean, e.head_mean, e.delta, e.verdict])).toEqual(
    [
      ['score', 60, 0.9, 0.72, -0.18, 'regressed'],
      ['pass', 60, 1, 0.7, -0.3, 'regressed'],
    ],
  );
  expect(r.effect!.suites).toEqual([{ path: 'evals/qa.yaml', rows: r.effect!.overall }]);

  const table = await runCli(['compare', base, head, '--fail-on', 'effect']);
  expect(table.code).toBe(1);
  expect(table.stdout).toMatch(/effect: pass rate 100% → 70% \(−30 points, 95% CI −\d+ to −\d+\): regressed/);
  const same = await runCli(['compare', base, base, '--fail-on', 'effect']);
  expect(same.stdout).toMatch(/effect: pass rate 100% → 100% \(0 points, 95% CI −\d to \+\d\): non-inferior/);
  expect(same.code).toBe(0);

  const typo = await runCli(['compare', base, head, '--effect-margn', '0.1']);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain("unknown option '--effect-margn': did you mean --effect-margin?");
}, 60_000);

test('plan: the cases a drop needs, none for a drop the margin forgives, repeats with repeats', async () => {
  const dir = tmpDir('re-cli-plan-');
  const base = resultsFile(dir, 'base.json', passing(100, 0.8));
  const plan = await runCli(['plan', '--baseline', base, '--drop', '0.1']);
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toMatch(/pass rate: [\d,]+ cases \(var\(d\) = 2 × 0\.16\d\d\)/);

  const json = JSON.parse(
    (await runCli(['plan', '--baseline', base, '--drop', '0.1', '--format', 'json'])).stdout,
  );
  expect(json.pass.by).toBe('cases');
  // var(d) = 2 × 0.1616: about (1.96 + 0.84)² × 0.32 / 0.1² ≈ 250 cases, a little more at the t quantiles.
  expect(json.pass.cases).toBeGreaterThan(200);
  expect(json.pass.cases).toBeLessThan(320);

  const small = await runCli(['plan', '--baseline', base, '--drop', '0.02']);
  expect(small.code).toBe(0);
  expect(small.stdout).toContain('pass rate: no answer: a drop of 0.02 is within the effect margin (0.05)');

  const repeated = resultsFile(
    dir,
    'repeated.json',
    Array.from({ length: 30 }, () => ({
      verdict: 'pass' as const,
      score: 0.8,
      answers: [0.9, 0.9, 0.3, 0.9].map((s) => ({
        verdict: s > 0.5 ? ('pass' as const) : ('fail' as const),
        score: s,
      })),
    })),
  );
  const r = JSON.parse(
    (await runCli(['plan', '--baseline', repeated, '--drop', '0.2', '--format', 'json'])).stdout,
  );
  expect(r.pass).toMatchObject({ by: 'repeats', cases: 30 });
  expect(r.pass.repeats).toBeGreaterThan(1);

  const typo = await runCli(['plan', '--baseline', base, '--dorp', '0.1']);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain("unknown option '--dorp': did you mean --drop?");
  expect((await runCli(['plan'])).stderr).toContain('plan needs --baseline <results.json>');
  expect((await runCli(['--help'])).stdout).toContain('rubric-eval plan --baseline <results.json>');
}, 60_000);
