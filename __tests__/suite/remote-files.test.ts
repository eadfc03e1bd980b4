import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { fetchRemoteFiles, MAX_REMOTE_BYTES } from '../../src/suite/remote-files.js';
import { type EvalSuite, type FileAttachment } from '../../src/suite/types.js';
import { Workspace } from '../../src/core/workspace.js';
import { tmpDir } from '../helpers/judge.js';

let gh: FakeGitHub | undefined;
afterEach(async () => {
  await gh?.close();
  gh = undefined;
});

const README = '# AgentV\nEvaluate agents.\n';

function suiteWith(url: string): EvalSuite {
  const root = tmpDir('re-remote-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(
    path.join(root, 'evals/s.yaml'),
    `evalcases:\n  - id: readme\n    input:\n      - role: user\n        content:\n          - type: text\n            value: Summarize\n          - type: file\n            value: ${url}\n`,
  );
  const r = loadSuiteFile(path.join(root, 'evals/s.yaml'), new Workspace(root));
  expect(r.diagnostics).toEqual([]);
  return r.suite!;
}
const fileOf = (s: EvalSuite): FileAttachment => {
  const part = s.cases[0]!.inputMessages[0]!.parts[1]!;
  if (part.type !== 'file') throw new Error('no file part');
  return part.file;
};

test('a GitHub URL is fetched through the API with the token; a branch with slashes is found', async () => {
  gh = await startGitHubServer({
    files: { 'EntityProcess/agentv@feature/x:docs/README.md': README },
  });
  const suite = suiteWith('https://github.com/EntityProcess/agentv/blob/feature/x/docs/README.md');
  const diags = await fetchRemoteFiles([suite], { apiUrl: gh.url, token: 'ghs_test', cacheDir: tmpDir() });
  expect(diags).toEqual([]);
  expect(fileOf(suite).text).toBe(README);
  expect(path.basename(fileOf(suite).absPath)).toBe('README.md');
  const asked = gh.state.requests.filter((r) => r.path.includes('/contents/'));
  expect(asked.map((r) => `${r.query.ref} ${r.path}`)).toEqual([
    'feature /repos/EntityProcess/agentv/contents/x/docs/README.md',
    'feature/x /repos/EntityProcess/agentv/contents/docs/README.md',
  ]);
  expect(asked[1]!.headers.authorization).toBe('Bearer ghs_test');
});

test('cached in cache-dir: a second run revalidates with the ETag and reuses the copy; offline it warns and uses it', async () => {
  gh = await startGitHubServer({ files: { 'o/r@main:README.md': README } });
  const cacheDir = tmpDir();
  const url = 'https://github.com/o/r/blob/main/README.md';
  expect(await fetchRemoteFiles([suiteWith(url)], { apiUrl: gh.url, token: null, cacheDir })).toEqual([]);
  const again = suiteWith(url);
  expect(await fetchRemoteFiles([again], { apiUrl: gh.url, token: null, cacheDir })).toEqual([]);
  expect(fileOf(again).text).toBe(README);
  const second = gh.state.requests[1]!;
  expect(second.headers['if-none-match']).toBeTruthy();
  await gh.close();
  const offline = suiteWith(url);
  const warnings: string[] = [];
  const diags = await fetchRemoteFiles([offline], {
    apiUrl: gh.url,
    token: null,
    cacheDir,
    warn: (m) => warnings.push(m),
  });
  gh = undefined;
  expect(diags).toEqual([]);
  expect(fileOf(offline).text).toBe(README);
  expect(warnings[0]).toMatch(/could not reach the GitHub API .* using the copy fetched earlier/);
});

test('offline without a copy, refused, missing or too large: a clear error at the case, never an empty file', async () => {
  const unreachable = await fetchRemoteFiles([suiteWith('https://github.com/o/r/blob/main/a.md')], {
    apiUrl: 'http://127.0.0.1:9',
    token: null,
    cacheDir: null,
  });
  expect(unreachable).toEqual([
    expect.objectContaining({
      severity: 'error',
      rule: 'remote-file',
      subject: "case 'readme'",
      line: 2,
      message: expect.stringMatching(
        /^could not reach the GitHub API \(http:\/\/127\.0\.0\.1:9\) to fetch https:\/\/github\.com\/o\/r\/blob\/main\/a\.md/,
      ),
    }),
  ]);
  gh = await startGitHubServer({
    files: { 'o/r@main:big.md': 'x'.repeat(MAX_REMOTE_BYTES + 1) },
    failures: [{ method: 'GET', path: /\/repos\/o\/private\//, status: 403, times: 9 }],
  });
  const messages = async (url: string, token: string | null) =>
    (await fetchRemoteFiles([suiteWith(url)], { apiUrl: gh!.url, token, cacheDir: null })).map(
      (d) => d.message,
    );
  expect(await messages('https://github.com/o/private/blob/main/a.md', 'ghs_x')).toEqual([
    'GitHub API refused (403) https://github.com/o/private/blob/main/a.md: `github-token` cannot read that repository',
  ]);
  expect(await messages('https://github.com/o/r/blob/main/missing.md', null)).toEqual([
    `https://github.com/o/r/blob/main/missing.md was not found through the GitHub API (${gh.url}); a private repository needs \`github-token\``,
  ]);
  expect(await messages('https://github.com/o/r/blob/main/big.md', null)).toEqual([
    'https://github.com/o/r/blob/main/big.md is larger than 1 MiB, the limit for remote files',
  ]);
});

test('a redirect is not followed (the token stays with the API host)', async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(302, { location: 'http://example.invalid/steal' });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const diags = await fetchRemoteFiles([suiteWith('https://github.com/o/r/blob/main/a.md')], {
    apiUrl: `http://127.0.0.1:${port}`,
    token: 'ghs_secret',
    cacheDir: null,
  });
  await new Promise((r) => server.close(r));
  expect(diags.map((d) => d.message)).toEqual([
    'GitHub API answered 302 for https://github.com/o/r/blob/main/a.md',
  ]);
});

test('only GitHub blob URLs are accepted, at load time with the position', () => {
  const root = tmpDir('re-remote-');
  writeFileSync(
    path.join(root, 's.yaml'),
    'evalcases:\n  - id: a\n    input:\n      - role: user\n        content:\n          - type: file\n            value: https://gitlab.com/o/r/-/blob/main/a.md\n',
  );
  const r = loadSuiteFile(path.join(root, 's.yaml'), new Workspace(root));
  expect(r.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule}`)).toEqual(['7:20 remote-file']);
  expect(r.diagnostics[0]!.message).toContain('is not a GitHub file URL');
});
