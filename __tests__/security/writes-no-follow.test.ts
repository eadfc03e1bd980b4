import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { sha256Hex } from '../../src/core/sha256.js';
import { runAction } from '../helpers/action.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  github = undefined;
});

const VICTIM = '// another action: its dist/index.js\nconsole.log("untouched");\n';

test('a symlink committed at the fetched-file cache path does not redirect the fetched text', async () => {
  judge = await startOpenAIServer();
  github = await startGitHubServer({ files: { 'o/r@main:README.md': '# pwned\n' } });
  const url = 'https://github.com/o/r/blob/main/README.md';
  const suite = `evalcases:\n  - id: readme\n    input:\n      - role: user\n        content:\n          - type: text\n            value: Summarize\n          - type: file\n            value: ${url}\n    expected_outcome: A summary\n`;
  const workspace = hostileRepo({ suite });
  const outside = tmpDir('re-victim-');
  const victim = path.join(outside, 'index.js');
  writeFileSync(victim, VICTIM);
  const slot = path.join(workspace, '.rubric-eval-cache/github-files', sha256Hex(url, 32));
  mkdirSync(slot, { recursive: true });
  symlinkSync(victim, path.join(slot, 'README.md'));
  const run = await runAction({
    workspace,
    // A cache in the checkout (the default is the runner's temp dir): the author can plant links there.
    inputs: {
      suites: 'suite.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-0005',
      'cache-dir': '.rubric-eval-cache',
    },
    eventName: 'push',
    apiUrl: github.url,
  });
  expect(readFileSync(victim, 'utf8')).toBe(VICTIM);
  expect(run.code).not.toBe(0);
  expect(readResults(workspace).verdict).not.toBe('pass');
  expect(run.stdout).toMatch(/refusing to write through .*README\.md: it is a symlink/);
});

test('a cache-dir and a results folder that are committed links to elsewhere get nothing written there', async () => {
  judge = await startOpenAIServer();
  const workspace = hostileRepo();
  const outside = tmpDir('re-elsewhere-');
  symlinkSync(outside, path.join(workspace, '.rubric-eval-cache'));
  symlinkSync(outside, path.join(workspace, 'out'));
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'suite.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-0005',
      'results-file': 'out/results.json',
      'cache-dir': '.rubric-eval-cache',
    },
    eventName: 'push',
  });
  // The judge was asked (the case ran), yet neither a cache entry nor the results landed outside.
  expect(judge.state.requests.length).toBeGreaterThan(0);
  expect(readdirSync(outside)).toEqual([]);
  expect(run.code).not.toBe(0);
  expect(run.stdout).toMatch(
    /::warning::cache-dir: refusing to write through .*\.rubric-eval-cache: it is a symlink/,
  );
  expect(run.stdout).toMatch(
    /could not write the results file .*out\/results\.json: refusing to write through .*out: it is a symlink/,
  );
});

test('a results file outside the workspace and the runner temp dir is refused', async () => {
  judge = await startOpenAIServer();
  const workspace = hostileRepo();
  const elsewhere = tmpDir('re-else-');
  const run = await runAction({
    workspace,
    inputs: {
      suites: 'suite.yaml',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-0005',
      'results-file': path.join(elsewhere, 'r.json'),
      'cache-dir': '',
    },
    eventName: 'push',
    env: { RUNNER_TEMP: tmpDir('re-runner-temp-'), TMPDIR: tmpDir('re-tmp-') },
  });
  expect(readdirSync(elsewhere)).toEqual([]);
  expect(run.code).not.toBe(0);
  expect(run.stdout).toMatch(/outside the workspace and the runner's temp dir/);
});
