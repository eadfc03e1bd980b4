import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type Subject } from '../../src/checker/subject.js';
import { historyBlock, parseHistory } from '../../src/report/history.js';
import { renderReport } from '../../src/report/comment-body.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';
import { CORPUS, corpusTest } from '../helpers/paths.js';

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

const SUBJECT: Subject = {
  kind: 'pull_request',
  title: 'Add search',
  body: 'Adds /search',
  files: ['src/search/api.py (added, +40 −0)'],
  diff: '+def search(q):\n+    ...\n',
  trimmed: [],
};

/**
 * A repository for the seed's search-feature rubric, unchanged: `pytest tests/test_search.py` and
 * `ruff check src/search/` are real commands here (small executables on PATH that run a real
 * Python test file and a real check).
 */
function searchRepo(testPasses: boolean): { root: string; env: NodeJS.ProcessEnv } {
  const root = tmpDir('re-search-');
  mkdirSync(path.join(root, 'tests'));
  mkdirSync(path.join(root, 'src/search'), { recursive: true });
  mkdirSync(path.join(root, '.bin'));
  copyFileSync(path.join(CORPUS, 'scope/search-feature-rubric.md'), path.join(root, 'RUBRIC.md'));
  writeFileSync(
    path.join(root, 'src/search/api.py'),
    'def search(q):\n    return [] if not q.strip() else [q]\n',
  );
  writeFileSync(
    path.join(root, 'tests/test_search.py'),
    `import sys\nsys.path.insert(0, 'src')\nfrom search.api import search\nassert search('  ') == []\nassert search('cat') == ${testPasses ? "['cat']" : "['dog']"}, 'search("cat") returned ' + repr(search('cat'))\nprint('2 passed')\n`,
  );
  writeFileSync(path.join(root, 'src/search/__init__.py'), '');
  writeFileSync(path.join(root, '.bin/pytest'), '#!/bin/sh\nexec python3 "$@"\n');
  writeFileSync(
    path.join(root, '.bin/ruff'),
    '#!/bin/sh\n[ "$1" = check ] && shift\nexec python3 -m py_compile "$1"api.py\n',
  );
  chmodSync(path.join(root, '.bin/pytest'), 0o755);
  chmodSync(path.join(root, '.bin/ruff'), 0o755);
  return { root, env: { PATH: `${path.join(root, '.bin')}:${process.env.PATH}`, HOME: root } };
}

const checker = (must: boolean[], nice: boolean[], verdict = 'retry') =>
  startOpenAIServer({
    respond: ({ desc }) =>
      desc.mode === 'markdown'
        ? {
            checks: desc.ids.map((id) => ({
              id,
              reasoning: `${id} reasoning`,
              satisfied: id.startsWith('must')
                ? must[Number(id.slice(5)) - 1]
                : nice[Number(id.slice(5)) - 1],
            })),
            feedback: 'Fix the failing test.',
            verdict,
          }
        : undefined,
  });

corpusTest(
  'search-feature-rubric: a failing gate fails the run, named; must-haves reported; nice-to-haves never block',
  async () => {
    judge = await checker([true, true, true], [false, true], 'retry');
    const { root, env } = searchRepo(false);
    const { results } = await runEvaluation(engineConfig(root, judge.url, { rubric: 'RUBRIC.md' }), {
      env,
      subject: async () => SUBJECT,
    });
    const r = results.rubric!;
    expect(results.verdict).toBe('fail');
    expect(r.verdict).toBe('fail');
    expect(r.gates.map((g) => [g.command, g.verdict])).toEqual([
      ['pytest tests/test_search.py', 'fail'],
      ['ruff check src/search/', 'pass'],
    ]);
    expect(r.gates[0]!.output).toContain('AssertionError: search("cat") returned [\'cat\']');
    expect(r.checks.map((c) => [c.id, c.kind, c.satisfied])).toEqual([
      ['must-1', 'must', true],
      ['must-2', 'must', true],
      ['must-3', 'must', true],
      ['nice-1', 'nice', false],
      ['nice-2', 'nice', true],
    ]);
    expect(r.counts).toEqual({
      gates_passed: 1,
      gates_total: 2,
      must_passed: 3,
      must_total: 3,
      nice_passed: 1,
      nice_total: 2,
    });
    // The checker saw the gate results and the failing gate's output, as context.
    const prompt = judge.state.requests[0]!.body.messages[1].content as string;
    expect(prompt).toContain(
      '- `pytest tests/test_search.py` — FAIL (exit 1)\n- `ruff check src/search/` — PASS (exit 0)',
    );
    expect(prompt).toContain('AssertionError');
    expect(prompt).toContain(
      '[must-2] Empty queries, special characters, and very long queries handled gracefully',
    );
    expect(prompt).toContain('# Notes\nContext for the checker agent (not scored).');
    const md = renderReport(results);
    expect(md).toContain('`gates: 1/2 · must: 3/3 · nice: 1/2`');
  },
);

corpusTest(
  'search-feature-rubric: both gates passing and every must-have satisfied passes, even with a nice-to-have failing',
  async () => {
    judge = await checker([true, true, true], [false, false], 'accept');
    const { root, env } = searchRepo(true);
    const { results } = await runEvaluation(engineConfig(root, judge.url, { rubric: 'RUBRIC.md' }), {
      env,
      subject: async () => SUBJECT,
    });
    expect(results.rubric!.gates.every((g) => g.verdict === 'pass')).toBe(true);
    expect(results.rubric!.verdict).toBe('pass');
    expect(results.verdict).toBe('pass');
  },
);

corpusTest('a must-have not satisfied fails even with every gate passing', async () => {
  judge = await checker([true, false, true], [true, true]);
  const { root, env } = searchRepo(true);
  const { results } = await runEvaluation(engineConfig(root, judge.url, { rubric: 'RUBRIC.md' }), {
    env,
    subject: async () => SUBJECT,
  });
  expect(results.rubric!.verdict).toBe('fail');
});

corpusTest('a checker that cannot answer fails the rubric, never passes it', async () => {
  judge = await startOpenAIServer({ respond: () => ({ content: 'LGTM!' }) });
  const { root, env } = searchRepo(true);
  const { results } = await runEvaluation(engineConfig(root, judge.url, { rubric: 'RUBRIC.md' }), {
    env,
    subject: async () => SUBJECT,
  });
  expect(results.rubric!.verdict).toBe('fail');
  expect(results.rubric!.error).toMatch(/checker: judge answer invalid after 2 repairs/);
});

test('sugar: "npm test"-style commands are gates-only (no judge call); "agent: ..." is criteria-only (no gates)', async () => {
  judge = await checker([true], []);
  const root = tmpDir('re-sugar-');
  const gatesOnly = await runEvaluation(
    engineConfig(root, judge.url, { rubric: 'node -e "process.exit(0)"' }),
    { env: { PATH: process.env.PATH } },
  );
  expect(gatesOnly.results.rubric).toMatchObject({
    verdict: 'pass',
    checks: [],
    counts: { gates_total: 1, gates_passed: 1 },
  });
  expect(judge.state.requests).toHaveLength(0);
  const failing = await runEvaluation(engineConfig(root, judge.url, { rubric: 'exit 7' }), { env: {} });
  expect(failing.results.rubric!.gates[0]).toMatchObject({ verdict: 'fail', exit_code: 7 });
  const criteriaOnly = await runEvaluation(
    engineConfig(root, judge.url, { rubric: 'agent: Review for correctness' }),
    { env: {}, subject: async () => SUBJECT },
  );
  expect(criteriaOnly.results.rubric).toMatchObject({
    verdict: 'pass',
    gates: [],
    checks: [{ id: 'must-1', text: 'Review for correctness', satisfied: true }],
  });
  expect(judge.state.requests).toHaveLength(1);
});

test('every gate runs, in order, even after one fails', async () => {
  const root = tmpDir('re-gates-');
  writeFileSync(
    path.join(root, 'RUBRIC.md'),
    '## Gates\n- `echo one >> order.log; exit 1`\n- `echo two >> order.log`\n- `echo three >> order.log; exit 2`\n',
  );
  const { results } = await runEvaluation(engineConfig(root, null, { rubric: 'RUBRIC.md' }), { env: {} });
  expect(results.rubric!.gates.map((g) => g.exit_code)).toEqual([1, 0, 2]);
  const { readFileSync } = await import('node:fs');
  expect(readFileSync(path.join(root, 'order.log'), 'utf8')).toBe('one\ntwo\nthree\n');
});

test('prior iterations round-trip through the comment body and reach the checker prompt', async () => {
  judge = await checker([true], []);
  const root = tmpDir('re-history-');
  const first = await runEvaluation(
    engineConfig(root, judge.url, { rubric: 'agent: Handles empty queries' }),
    { env: {}, subject: async () => SUBJECT, commit: 'aaaaaaa1' },
  );
  const body = renderReport(first.results, { sticky: true });
  expect(body).toContain(historyBlock(first.results.history));
  const history = parseHistory(body);
  expect(history).toEqual(first.results.history);
  await runEvaluation(engineConfig(root, judge.url, { rubric: 'agent: Handles empty queries' }), {
    env: {},
    subject: async () => SUBJECT,
    history,
    commit: 'bbbbbbb2',
  });
  const second = judge.state.requests[1]!.body.messages[1].content as string;
  expect(second).toContain('This is iteration 1.');
  // Earlier feedback quotes the PR: it reaches the checker fenced as data.
  expect(second).toMatch(
    /# Prior Iterations\n<<<PRIOR_ITERATIONS [0-9a-f]{16} \(untrusted data[^\n]*\n- Iteration 0 \(aaaaaaa\): \*\*ACCEPT\*\* — must: 1\/1 — Fix the failing test\.\n<<<END PRIOR_ITERATIONS [0-9a-f]{16}>>>/,
  );
});

test('history in a comment that was edited by hand or truncated is ignored, not a crash', () => {
  expect(parseHistory('<!-- rubric-eval-history:not base64!! -->')).toEqual([]);
  expect(parseHistory(`<!-- rubric-eval-history:${Buffer.from('{"x": 1}').toString('base64')} -->`)).toEqual(
    [],
  );
  expect(parseHistory(null)).toEqual([]);
});
