import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Workspace } from '../../src/core/workspace.js';
import { tmpDir } from '../helpers/judge.js';

// Written from AgentV v2.6.1's file resolver (loaders/file-resolver.ts and its tests): an absolute
// path as it is, then the path without leading separators against the suite's folder and each
// ancestor. Stricter on purpose: nothing outside the workspace is read.
function tree(): { root: string; ws: Workspace; evals: string } {
  const root = tmpDir('re-resolve-');
  const evals = path.join(root, 'evals/nested');
  mkdirSync(evals, { recursive: true });
  writeFileSync(path.join(root, 'test.txt'), 'root');
  writeFileSync(path.join(evals, 'test.txt'), 'beside');
  writeFileSync(path.join(root, 'only-root.txt'), 'root');
  mkdirSync(path.join(root, 'nested/path'), { recursive: true });
  writeFileSync(path.join(root, 'nested/path/file.txt'), 'nested');
  return { root, ws: new Workspace(root), evals };
}

describe('Workspace.resolveReference', () => {
  test('a relative path: the suite folder first, then each ancestor', () => {
    const { root, ws, evals } = tree();
    expect(ws.resolveReference('test.txt', evals)).toEqual({
      ok: true,
      absPath: path.join(evals, 'test.txt'),
    });
    expect(ws.resolveReference('only-root.txt', evals)).toEqual({
      ok: true,
      absPath: path.join(root, 'only-root.txt'),
    });
    expect(ws.resolveReference('nested/path/file.txt', evals)).toEqual({
      ok: true,
      absPath: path.join(root, 'nested/path/file.txt'),
    });
  });

  test('a leading separator is trimmed: the suite folder still comes first', () => {
    const { root, ws, evals } = tree();
    expect(ws.resolveReference('/test.txt', evals)).toEqual({
      ok: true,
      absPath: path.join(evals, 'test.txt'),
    });
    expect(ws.resolveReference('//only-root.txt', evals)).toEqual({
      ok: true,
      absPath: path.join(root, 'only-root.txt'),
    });
  });

  test('an absolute path inside the workspace is used as it is', () => {
    const { root, ws, evals } = tree();
    const abs = path.join(root, 'test.txt');
    expect(ws.resolveReference(abs, evals)).toEqual({ ok: true, absPath: abs });
  });

  test('an absolute path outside the workspace is never read: only its trimmed form is searched', () => {
    const { root, ws, evals } = tree();
    const dir = tmpDir('re-outside-');
    writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    const outside = path.join(dir, 'secret.txt');
    const r = ws.resolveReference(outside, evals);
    expect(r).toMatchObject({ ok: false, rule: 'missing-file' });
    // Whether it exists out there is not told: the same answer as for a path that does not.
    const absent = ws.resolveReference(path.join(dir, 'absent.txt'), evals);
    expect(!r.ok && !absent.ok && r.message.replaceAll('secret', 'absent')).toBe(
      !absent.ok && absent.message,
    );
    // A file at the trimmed path inside the workspace is the one used.
    const inside = path.join(root, outside.slice(1));
    mkdirSync(path.dirname(inside), { recursive: true });
    writeFileSync(inside, 'inside');
    expect(ws.resolveReference(outside, evals)).toEqual({ ok: true, absPath: inside });
  });

  test('not found: every place looked in is named', () => {
    const { ws, evals } = tree();
    expect(ws.resolveReference('/missing.txt', evals)).toEqual({
      ok: false,
      rule: 'missing-file',
      message:
        "file '/missing.txt' not found (looked for evals/nested/missing.txt, evals/missing.txt, missing.txt)",
    });
  });

  test('.. out of the workspace and symlinks out of it stay refused', () => {
    const { root, ws, evals } = tree();
    expect(ws.resolveReference('../../../x.txt', evals)).toMatchObject({
      ok: false,
      rule: 'escapes-workspace',
    });
    expect(ws.resolveReference('/../../../x.txt', evals)).toMatchObject({
      ok: false,
      rule: 'escapes-workspace',
    });
    const outside = path.join(tmpDir('re-outside-'), 'secret.txt');
    writeFileSync(outside, 'secret');
    symlinkSync(outside, path.join(root, 'link.txt'));
    expect(ws.resolveReference('/link.txt', evals)).toMatchObject({ ok: false, rule: 'escapes-workspace' });
  });
});

test('a text read once is refused to a later reader that allows less, as a first read by it would be', () => {
  const root = tmpDir('re-ws-cap-');
  const file = path.join(root, 'labels.yaml');
  writeFileSync(file, 'x'.repeat(2048));
  const ws = new Workspace(root);
  expect(ws.readText(file)).toHaveLength(2048);
  expect(() => ws.readText(file, 1024)).toThrow(expect.objectContaining({ rule: 'too-large' }));
  expect(ws.readText(file, 4096)).toHaveLength(2048);
});
