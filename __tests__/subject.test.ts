import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { budgetDiff, gitDiffSubject, lastCommitSubject, splitDiff } from '../src/subject.js';
import { tmpDir } from './helpers/judge.js';

function repo(): string {
  const dir = tmpDir('re-git-');
  const git = (...args: string[]) =>
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
