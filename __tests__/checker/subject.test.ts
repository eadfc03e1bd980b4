import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { budgetDiff, gitDiffSubject, lastCommitSubject, splitDiff } from '../../src/checker/subject.js';
import { tmpDir } from '../helpers/judge.js';

/** git in `dir`, with a fixed author so commits need no global config. */
function gitIn(dir: string) {
  return (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    });
}

function repo(): string {
  const dir = tmpDir('re-git-');
  const git = gitIn(dir);
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  git('add', '.');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
  writeFileSync(path.join(dir, 'b.txt'), 'new\n');
  git('add', '.');
  git('commit', '-qm', 'Add two', '-m', 'Body of the change');
  return dir;
}

test('outside a pull request the subject is the last commit', async () => {
  const s = await lastCommitSubject(repo());
  expect(s).toMatchObject({
    kind: 'commit',
    title: 'Add two',
    body: 'Body of the change',
    files: ['a.txt', 'b.txt'],
    trimmed: [],
  });
  expect(s.diff).toContain('+two');
});

test('locally, the change since a base ref (from its merge base)', async () => {
  const s = await gitDiffSubject(repo(), 'main');
  expect(s.kind).toBe('diff');
  expect(s.files).toEqual(['a.txt', 'b.txt']);
  expect(s.diff).toContain('+new');
});

test('a git that hangs fails the subject within its time limit, not the run forever', async () => {
  const bin = tmpDir('re-hung-git-');
  writeFileSync(path.join(bin, 'git'), '#!/bin/sh\nexec sleep 30\n');
  chmodSync(path.join(bin, 'git'), 0o755);
  const saved = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${saved}`;
  try {
    const started = Date.now();
    await expect(lastCommitSubject(bin, 300)).rejects.toThrow('git log did not finish within 0.3 s');
    await expect(gitDiffSubject(bin, 'main', 300)).rejects.toThrow(
      'git merge-base did not finish within 0.3 s',
    );
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    process.env.PATH = saved;
  }
});

test('a diff over budget drops whole files, largest first, and names them', () => {
  const diff = ['small', 'huge', 'medium']
    .map((f, i) => `diff --git a/${f} b/${f}\n${'+x\n'.repeat([2, 500, 50][i]!)}`)
    .join('');
  expect(splitDiff(diff).map((p) => p.file)).toEqual(['small', 'huge', 'medium']);
  const b = budgetDiff(diff, 400);
  expect(b.trimmed).toEqual(['huge']);
  expect(b.files).toEqual(['small', 'huge', 'medium']);
  expect(b.diff).toContain('diff --git a/medium b/medium');
  expect(b.diff).not.toContain('diff --git a/huge');
});

describe('file names in a diff are read as git writes them', () => {
  function renamedRepo(): string {
    const dir = repo();
    const git = gitIn(dir);
    writeFileSync(path.join(dir, 'my file.txt'), 'spaces\n');
    writeFileSync(path.join(dir, 'say "hi".txt'), 'quotes\n');
    writeFileSync(path.join(dir, 'naïve café.txt'), 'accents\n');
    writeFileSync(path.join(dir, 'a b.txt'), 'tricky\n');
    git('add', '.');
    git('commit', '-qm', 'names');
    git('mv', 'my file.txt', 'your file now.txt');
    writeFileSync(path.join(dir, 'x b y.txt'), 'a " b/" inside\n');
    git('add', '.');
    git('commit', '-qm', 'rename');
    return dir;
  }

  test('spaces, quotes, non-ASCII and a rename, from real git output', async () => {
    const dir = renamedRepo();
    const s = await gitDiffSubject(dir, 'main');
    expect(s.files).toEqual([
      'a b.txt',
      'a.txt',
      'b.txt',
      'naïve café.txt',
      'say "hi".txt',
      'x b y.txt',
      'your file now.txt',
    ]);
  });

  test.each([
    ['a/my file.txt b/my file.txt', '', 'my file.txt'],
    ['"a/say \\"hi\\".txt" "b/say \\"hi\\".txt"', '', 'say "hi".txt'],
    ['"a/na\\303\\257ve.txt" "b/na\\303\\257ve.txt"', '', 'naïve.txt'],
    ['"a/tab\\there" "b/tab\\there"', '', 'tab\there'],
    ['a/old name b/new name', 'rename from old name\nrename to new name\n', 'new name'],
    ['a/x b/y b/z', '--- a/x b/y\n+++ b/z\n', 'z'],
  ])('%s', (header, body, want) => {
    const diff = `diff --git ${header}\n${body}@@ -1 +1 @@\n-a\n+b\n`;
    expect(splitDiff(diff).map((p) => p.file)).toEqual([want]);
  });
});
