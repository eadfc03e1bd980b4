import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runCli } from '../helpers/cli.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';
import { startParisJudge } from '../helpers/paris-judge.js';

/** `--html FILE` through dist/cli.js: the file is written where the CLI runs, with every case. */

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

test('rubric-eval run --html writes one self-contained report holding every case', async () => {
  judge = await startParisJudge();
  const root = makeFixtureRepo({ answers: { 'capital-of-france': 'It is <b>Lyon</b>.' } });
  const run = await runCli(
    ['run', 'evals/*.yaml', '--judge-base-url', judge.url, '--no-cache', '--html', 'out/report.html'],
    { cwd: root, env: { RUBRIC_EVAL_JUDGE_API_KEY: 'sk-e2e-judge-key-000111' } },
  );
  expect(run.code).toBe(1);
  const html = readFileSync(path.join(root, 'out/report.html'), 'utf8');
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).toContain("default-src 'none'");
  const data = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  expect(data).not.toContain('<');
  const parsed = JSON.parse(data) as { cases: { id: string; verdict: string; answer: string }[] };
  expect(parsed.cases.map((c) => [c.id, c.verdict])).toEqual([
    ['capital-of-france', 'fail'],
    ['explain-quicksort', 'pass'],
  ]);
  expect(parsed.cases[0]!.answer).toBe('It is <b>Lyon</b>.');
}, 120_000);
