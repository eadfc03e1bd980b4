import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
afterEach(async () => {
  await judge?.close();
  await github?.close();
});

const API_KEY = 'sk-live-Q7vX2mZp9Rt4Wn8Ly3Kd';
const PEM_LINES = [
  '-----BEGIN TEST PRIVATE KEY-----',
  'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu',
  'KUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQJAIJLixBy2qpFoS4DSmoEm',
  '-----END TEST PRIVATE KEY-----',
];
const GH_TOKEN = 'ghs_Zq8Xk2Lw9Pv4Tn7Rj5';

/** Every place a secret could end up: results, comment, summary, logs, and what the judge got. */
function everywhere(workspace: string, run: { stdout: string; stderr: string; summary: string }) {
  return {
    results: readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
    comment: github.state.comments.map((c) => c.body).join('\n'),
    summary: run.summary,
    logs: run.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n'),
    stderr: run.stderr,
    judge: JSON.stringify(judge.state.requests.map((q) => q.body)),
  };
}

/** No run of `size` characters of `secret` appears in any of the places. */
function expectNoFragment(places: Record<string, string>, secret: string, size = 8) {
  for (const [where, text] of Object.entries(places))
    for (let i = 0; i + size <= secret.length; i++) {
      const piece = secret.slice(i, i + size);
      expect([where, piece, text.includes(piece)]).toEqual([where, piece, false]);
    }
}

async function run(workspace: string, inputs: Record<string, string> = {}) {
  judge = await startOpenAIServer();
  github = await startGitHubServer();
  return runAction({
    workspace,
    inputs: {
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-key-0005',
      'github-token': GH_TOKEN,
      'cache-dir': '',
      ...inputs,
    },
    env: { MY_API_KEY: API_KEY, DEPLOY_PRIVATE_KEY: PEM_LINES.join('\n') },
    event: PR_EVENT,
    apiUrl: github.url,
  });
}

test('a secret straddling where long gate output is cut (the kept head, the kept tail) leaks no fragment', async () => {
  // 4 KB head and 16 KB tail are kept: the key crosses both cuts.
  const print = `process.stdout.write('x'.repeat(4090) + process.env.MY_API_KEY + 'y'.repeat(50000) + process.env.MY_API_KEY + 'z'.repeat(16384 - 18))`;
  const workspace = hostileRepo({
    files: { 'gate.js': print, 'RUBRIC.md': '## Gates\n- `node gate.js; exit 1`\n\n## Criteria\n- Small\n' },
  });
  const r = await run(workspace, { rubric: 'RUBRIC.md' });
  expect(r.code).toBe(1);
  const places = everywhere(workspace, r);
  expect(places.results).toContain('bytes cut');
  expect(places.results).toMatch(/x\*\*\*y/);
  expectNoFragment(places, API_KEY);
});

test('a multi-line secret is redacted line by line: a gate and a target printing single lines of it leak none', async () => {
  const workspace = hostileRepo({
    cli: `printf 'line: %s\\n' "$(printf '%s\\n' "$DEPLOY_PRIVATE_KEY" | sed -n 3p)"`,
    files: {
      'RUBRIC.md':
        '## Gates\n- `printf \'%s\\n\' "$DEPLOY_PRIVATE_KEY" | sed -n 2p; exit 1`\n\n## Criteria\n- Small\n',
    },
  });
  const r = await run(workspace, { suites: 'suite.yaml', rubric: 'RUBRIC.md' });
  const places = everywhere(workspace, r);
  expect(places.results).toContain('line: ***');
  for (const line of PEM_LINES.slice(1, 3)) expectNoFragment(places, line, 12);
});

test('answers from an answers file are redacted before the judge, and before the cap cuts them', async () => {
  // The key crosses the point where the 100,000-character cap keeps the head.
  const answer = `${'a'.repeat(75_000 - 10)}${API_KEY} and ${GH_TOKEN}${'b'.repeat(100_000)}`;
  const workspace = hostileRepo({
    files: { 'answers.jsonl': JSON.stringify({ eval_id: 'sum', candidate_answer: answer }) + '\n' },
  });
  const r = await run(workspace, { suites: 'suite.yaml', 'answers-file': 'answers.jsonl' });
  expect(r.code).toBe(0);
  const places = everywhere(workspace, r);
  expect(places.judge.includes('aaa*** and *')).toBe(true);
  expect(places.judge.includes('characters cut by rubric-eval')).toBe(true);
  expectNoFragment(places, API_KEY);
  expectNoFragment(places, GH_TOKEN);
});
