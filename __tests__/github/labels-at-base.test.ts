import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { labelsAtBase } from '../../src/github/labels-at-base.js';
import { tmpDir } from '../helpers/judge.js';

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
};

function repo(files: Record<string, string>): { root: string; sha: string } {
  const root = tmpDir('re-labels-');
  for (const [f, t] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), t);
  }
  const git = (...a: string[]) => execFileSync('git', a, { cwd: root, env, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base', '--allow-empty');
  return { root, sha: git('rev-parse', 'HEAD').trim() };
}

const signal = new AbortController().signal;

test("the base commit's file gates, the working tree's is only proposed; a working directory below the root resolves", async () => {
  const { root, sha } = repo({ 'app/evals/labels.jsonl': 'base\n' });
  writeFileSync(path.join(root, 'app/evals/labels.jsonl'), 'head\n');
  const read = labelsAtBase({
    baseSha: sha,
    workspace: root,
    workingDirectory: path.join(root, 'app'),
    octokit: null,
    repo: null,
    signal,
  });
  expect(await read('evals/labels.jsonl')).toEqual({
    gating: { text: 'base\n', from: `base ${sha.slice(0, 7)}` },
    proposed: { text: 'head\n', from: 'pull request head' },
  });
});

test('a file the base does not have: no labels gate; one the PR deletes: proposed null', async () => {
  const { root, sha } = repo({ 'README.md': 'x' });
  writeFileSync(path.join(root, 'labels.jsonl'), 'head\n');
  const read = labelsAtBase({
    baseSha: sha,
    workspace: root,
    workingDirectory: root,
    octokit: null,
    repo: null,
    signal,
  });
  expect((await read('labels.jsonl')).gating.text).toBeNull();
  const other = repo({ 'labels.jsonl': 'base\n' });
  execFileSync('git', ['rm', '-q', 'labels.jsonl'], { cwd: other.root, env });
  const r = labelsAtBase({
    baseSha: other.sha,
    workspace: other.root,
    workingDirectory: other.root,
    octokit: null,
    repo: null,
    signal,
  });
  expect(await r('labels.jsonl')).toMatchObject({ gating: { text: 'base\n' }, proposed: { text: null } });
});

test('refusals: no base sha, a shallow checkout without a token, a path outside the working directory', async () => {
  const { root } = repo({ 'labels.jsonl': 'x' });
  const o = { workspace: root, workingDirectory: root, octokit: null, repo: null, signal };
  await expect(labelsAtBase({ ...o, baseSha: null })('labels.jsonl')).rejects.toThrow(/names no base commit/);
  await expect(labelsAtBase({ ...o, baseSha: 'f'.repeat(40) })('labels.jsonl')).rejects.toThrow(
    /lacks the base commit fffffff and no github-token/,
  );
  await expect(labelsAtBase({ ...o, baseSha: 'f'.repeat(40) })('../x.jsonl')).rejects.toThrow(
    /outside the working directory/,
  );
});
