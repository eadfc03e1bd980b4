import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../__fixtures__/servers/openai-server.mjs';
import { E2E_NODE } from './helpers/action.js';
import { tmpDir } from './helpers/judge.js';
import { REPO_ROOT } from './helpers/paths.js';

/** The README's local judge, which the test swaps for the scripted one. */
const README_JUDGE = 'http://localhost:11434/v1';

/** The newcomer path: every fenced block the README marks with `<!-- newcomer -->`, in order. */
function newcomerBlocks(): string[] {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/<!-- newcomer -->\n```bash\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

/** Runs one block in bash (-e: any failing command fails the block), as a newcomer's shell would. */
function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

let judge: FakeOpenAI;
beforeAll(async () => {
  judge = await startOpenAIServer();
});
afterAll(() => judge.close());

test("the README's newcomer path runs as written: files, validate, run against a local judge, then the cache", async () => {
  const blocks = newcomerBlocks();
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  expect(blocks.join('\n')).toContain(README_JUDGE);

  const root = tmpDir('re-newcomer-');
  const project = path.join(root, 'project');
  const bin = path.join(root, 'bin');
  mkdirSync(project);
  mkdirSync(bin);
  // What `npm install -g ./rubric-eval` puts on the PATH: the package's bin, dist/cli.js.
  writeFileSync(
    path.join(bin, 'rubric-eval'),
    `#!/bin/sh\nexec "${E2E_NODE}" "${REPO_ROOT}/dist/cli.js" "$@"\n`,
  );
  chmodSync(path.join(bin, 'rubric-eval'), 0o755);
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: path.join(root, 'home'),
    GIT_AUTHOR_NAME: 'New Comer',
    GIT_AUTHOR_EMAIL: 'newcomer@example.com',
    GIT_COMMITTER_NAME: 'New Comer',
    GIT_COMMITTER_EMAIL: 'newcomer@example.com',
  };
  // "In your project's folder (a git repository)".
  expect((await bash('git init -q', project, env)).code).toBe(0);

  const outputs: string[] = [];
  for (const block of blocks) {
    const result = await bash(block.replaceAll(README_JUDGE, judge.url), project, env);
    outputs.push(result.out);
    expect({ block, ...result }).toMatchObject({ block, code: 0 });
  }
  const [, validate, run] = outputs;
  expect(validate).toBe('ok: 1 suite, 2 cases, 1 rubric\n');
  expect(run).toContain('Rubric Support bot (RUBRIC.md): pass  gates: 1/1 · must: 1/1');
  expect(run).toContain('Verdict: PASS  score 1.00  (2 pass · 0 borderline · 0 fail)');
  // Two cases (one checklist call each) and the rubric's criteria (one call).
  expect(judge.state.served).toBe(3);

  // Step 5: the cache is outside the checkout, under HOME, and a re-run makes no judge call.
  const again = await bash(
    blocks[2]!.replace(/^git .*\n/m, '').replaceAll(README_JUDGE, judge.url),
    project,
    env,
  );
  expect(again.code).toBe(0);
  expect(again.out).toContain('0 judge calls (+3 cached)');
  expect(judge.state.served).toBe(3);
  expect((await bash('git status --porcelain', project, env)).out).toBe('');
});
