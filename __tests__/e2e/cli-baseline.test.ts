import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { startParisJudge } from '../helpers/paris-judge.js';
import { runCli } from '../helpers/cli.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';

let judge: FakeOpenAI;
beforeAll(async () => {
  judge = await startParisJudge();
});
afterAll(() => judge.close());

const env = { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-cli-test-000000' };
const run = (cwd: string, ...args: string[]) =>
  runCli(['run', 'evals/*.yaml', '--judge-base-url', judge.url, '--no-cache', ...args], { cwd, env });

test('run --baseline FILE: changes per case, and --fail-on regression blames only what got worse', async () => {
  const repo = makeFixtureRepo();
  const base = await run(repo, '--out', 'base.json');
  expect(base.code).toBe(0);

  // The answer loses Paris: the case was passing on the base, so it is broken.
  const broken = makeFixtureRepo({ answers: { 'capital-of-france': 'Lyon' } });
  const r = await run(
    broken,
    '--baseline',
    path.join(repo, 'base.json'),
    '--fail-on',
    'regression',
    '--format',
    'json',
  );
  expect(r.code).toBe(1);
  const results = JSON.parse(r.stdout) as RunResults;
  expect(results.suites[0]!.cases.map((c) => [c.id, c.baseline?.change])).toEqual([
    ['capital-of-france', 'broken'],
    ['explain-quicksort', 'same'],
  ]);
  expect(results.baseline).toMatchObject({ source: 'file', changes: { broken: 1, same: 1 } });

  // Run again against that broken run: the failure is now on both sides, and the check passes.
  writeFileSync(path.join(broken, 'broken.json'), r.stdout);
  const again = await run(broken, '--baseline', 'broken.json', '--fail-on', 'regression');
  expect(again.stdout).toMatch(/fail\s+0\.50\s+capital-of-france\s+still failing/);
  expect(again.stdout).toContain('vs base broken.json: 1 still failing');
  expect(again.code).toBe(0);

  // A missing baseline file is a warning; regression then judges as fail.
  const missing = await run(broken, '--baseline', 'nope.json', '--fail-on', 'regression');
  expect(missing.stderr).toContain(
    'warning: no baseline: baseline file nope.json not found; the run goes on without one',
  );
  expect(missing.stdout).toContain('fail-on regression judges this run as fail');
  expect(missing.code).toBe(1);
}, 60_000);

test('compare BASE HEAD: table, markdown and json; exit codes as run', async () => {
  const repo = makeFixtureRepo();
  expect((await run(repo, '--out', 'base.json')).code).toBe(0);
  const head = makeFixtureRepo({ answers: { 'capital-of-france': 'Lyon' } });
  expect((await run(head, '--out', 'head.json', '--fail-on', 'never')).code).toBe(0);
  const files = [path.join(repo, 'base.json'), path.join(head, 'head.json')];

  const table = await runCli(['compare', ...files]);
  expect(table.code).toBe(1);
  expect(table.stdout).toMatch(/fail\s+0\.50 ▼0\.50\s+capital-of-france\s+broken/);
  expect(table.stdout).toMatch(/vs base \S*base\.json: 1 broken/);

  const md = await runCli(['compare', ...files, '--format', 'markdown', '--fail-on', 'never']);
  expect(md.code).toBe(0);
  expect(md.stdout).toMatch(/^vs base `[^`]*base\.json`: 1 broken$/m);
  expect(md.stdout).toContain('| ❌ | `capital-of-france` | 0.50 ▼0.50 | broken |');

  const json = await runCli(['compare', ...files, '--format', 'json']);
  expect(json.code).toBe(1);
  expect((JSON.parse(json.stdout) as RunResults).baseline!.changes).toMatchObject({
    broken: 1,
    same: 1,
    removed: 0,
  });

  // The same file on both sides: nothing changed, and the pre-existing failure does not fail.
  const same = await runCli(['compare', files[1]!, files[1]!]);
  expect(same.stdout).toContain('1 still failing');
  expect(same.code).toBe(0);
  expect((await runCli(['compare', files[1]!, files[1]!, '--fail-on', 'fail'])).code).toBe(1);
}, 60_000);

test('compare: unreadable or foreign files and bad flags exit 2 with the reason', async () => {
  const repo = makeFixtureRepo();
  writeFileSync(path.join(repo, 'v2.json'), JSON.stringify({ version: 2, suites: [] }));
  writeFileSync(path.join(repo, 'half.json'), '{"version": 1, "suites": [');
  const v2 = await runCli(['compare', 'v2.json', 'v2.json'], { cwd: repo });
  expect(v2.code).toBe(2);
  expect(v2.stderr).toContain('v2.json has results version 2; this rubric-eval compares with version 1 only');
  const half = await runCli(['compare', 'half.json', 'v2.json'], { cwd: repo });
  expect(half.code).toBe(2);
  expect(half.stderr).toMatch(/half\.json is not readable JSON/);
  const missing = await runCli(['compare', 'nope.json', 'v2.json'], { cwd: repo });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/nope\.json: ENOENT/);
  expect((await runCli(['compare', 'v2.json'], { cwd: repo })).code).toBe(2);
  expect((await runCli(['compare', 'a', 'b', '--fail-on', 'sometimes'], { cwd: repo })).stderr).toContain(
    '--fail-on must be one of fail, borderline, inconclusive, regression, never, calibration, effect',
  );
  const help = await runCli(['compare', '--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('Usage: rubric-eval compare <base.json> <head.json>');
  expect(readFileSync(path.join(repo, 'v2.json'), 'utf8')).toContain('"version":2');
});
