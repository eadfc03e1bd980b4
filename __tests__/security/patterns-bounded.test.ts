import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

// `^(a|a)+$` against 34 `a`s and a `!`: JavaScript's engine backtracks 2^34 times (minutes on
// the main thread, where the signal handlers wait too); RE2 answers in one pass.
const EVIL = '^(a|a)+$';
const LONG = `${'a'.repeat(34)}!`;

function patternRepo(extra: string, answers: Record<string, string>, rubric?: string): string {
  const suite = [
    'prompts: ["{{ q }}"]',
    'tests:',
    '  - id: regex-evil',
    '    vars: { q: one }',
    '    assert:',
    `      - { type: regex, value: ${JSON.stringify(EVIL)} }`,
    '  - id: schema-evil',
    '    vars: { q: two }',
    '    assert:',
    `      - type: is-json`,
    `        value: { type: object, properties: { id: { type: string, pattern: ${JSON.stringify(EVIL)} } } }`,
    extra,
  ].join('\n');
  const workspace = hostileRepo({ suite, files: rubric ? { 'RUBRIC.md': rubric } : {} });
  writeFileSync(
    path.join(workspace, 'answers.jsonl'),
    Object.entries(answers)
      .map(([id, a]) => JSON.stringify({ eval_id: id, candidate_answer: a }))
      .join('\n'),
  );
  return workspace;
}

const inputs = (more: Record<string, string> = {}) => ({
  suites: 'suite.yaml',
  'answers-file': 'answers.jsonl',
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-judge-key-0032',
  'cache-dir': '',
  ...more,
});

test('a catastrophic regex and JSON Schema pattern fail at once; SIGINT mid-run still ends it within 5 s', async () => {
  judge = await startOpenAIServer();
  // Valid, but too large for its answer: not run at all, an error even negated.
  const huge = [
    '  - id: huge',
    '    vars: { q: five }',
    '    assert:',
    '      - { type: regex, value: "[a-z]{1000}", negate: true }',
  ];
  const workspace = patternRepo(
    huge.join('\n'),
    { 'regex-evil': LONG, 'schema-evil': JSON.stringify({ id: LONG }), huge: 'a'.repeat(100_001) },
    '## Gates\n- `touch gate-started; sleep 30`\n\n## Criteria\n- Small\n',
  );
  let sentAt = 0;
  const run = await runAction({
    workspace,
    inputs: inputs({ rubric: 'RUBRIC.md' }),
    eventName: 'push',
    // Cancel once the gate runs: the cases (and their patterns) run alongside it.
    onStart: (pid) => {
      const poll = setInterval(() => {
        if (!existsSync(path.join(workspace, 'gate-started'))) return;
        clearInterval(poll);
        setTimeout(() => {
          sentAt = Date.now();
          process.kill(pid, 'SIGINT');
        }, 1500);
      }, 50);
    },
  });
  expect(sentAt).toBeGreaterThan(0);
  expect(Date.now() - sentAt).toBeLessThan(5000);
  expect(run.code).not.toBe(0);
  expect(run.stdout).toContain('::warning::SIGINT received');
  const results = readResults(workspace);
  expect(results.partial).toBe(true);
  const cases = Object.fromEntries(results.suites[0]!.cases.map((c) => [c.id, c]));
  expect(cases['regex-evil']).toMatchObject({ verdict: 'fail', score: 0 });
  expect(cases['schema-evil']).toMatchObject({ verdict: 'fail', score: 0 });
  expect(cases.huge).toMatchObject({ verdict: 'error' });
  expect(JSON.stringify(cases.huge)).toContain('exceeds the time budget');
  expect(results.verdict).toBe('fail');
});

test('a pattern RE2 cannot run (lookahead, backreference) is a located error, never a pass, even negated', async () => {
  judge = await startOpenAIServer();
  const extra = [
    '  - id: lookahead',
    '    vars: { q: three }',
    '    assert:',
    '      - { type: regex, value: "^(?!.*secret)", negate: true }',
    '  - id: backref',
    '    vars: { q: four }',
    '    assert:',
    '      - type: is-json',
    '        value: { type: string, pattern: "(a)\\\\1" }',
  ].join('\n');
  const workspace = patternRepo(extra, {
    'regex-evil': 'aaa',
    'schema-evil': '{"id": "aaa"}',
    lookahead: 'no secret here',
    backref: '"aa"',
  });
  const run = await runAction({ workspace, inputs: inputs(), eventName: 'push' });
  expect(run.code).not.toBe(0);
  const results = readResults(workspace);
  expect(results.verdict).not.toBe('pass');
  expect(run.outputs.verdict).not.toBe('pass');
  const all = results.errors.join('\n');
  expect(run.stdout + all).toMatch(/suite\.yaml.*15:\d+.*negative lookahead/);
  expect(run.stdout + all).toMatch(/suite\.yaml.*20:\d+.*backreference/);
  for (const c of results.suites.flatMap((s) => s.cases))
    if (c.id === 'lookahead' || c.id === 'backref') expect(c.verdict).not.toBe('pass');
});
