import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  confineWrites,
  makeDirNoFollow,
  openExistingNoFollow,
  unconfineWrites,
  writeFileNoFollow,
  writeFileNoFollowAsync,
} from '../../src/core/safe-write.js';
import { tmpDir } from '../helpers/judge.js';

afterEach(() => unconfineWrites());

function setup() {
  const ws = tmpDir('re-sw-ws-');
  const outside = tmpDir('re-sw-out-');
  confineWrites([ws]);
  return { ws, outside };
}

test('writes whole files, creating folders, leaving no temp file', () => {
  const { ws } = setup();
  writeFileNoFollow(path.join(ws, 'a/b/c.json'), ['{', '}']);
  expect(readFileSync(path.join(ws, 'a/b/c.json'), 'utf8')).toBe('{}');
  writeFileNoFollow(path.join(ws, 'a/b/c.json'), 'again');
  expect(readFileSync(path.join(ws, 'a/b/c.json'), 'utf8')).toBe('again');
  expect(readdirSync(path.join(ws, 'a/b'))).toEqual(['c.json']);
});

test('a symlinked folder anywhere on the way, or a link at the name, is refused; nothing lands outside', () => {
  const { ws, outside } = setup();
  symlinkSync(outside, path.join(ws, 'cache'));
  expect(() => writeFileNoFollow(path.join(ws, 'cache/x/entry.json'), 'x')).toThrow(/cache: it is a symlink/);
  mkdirSync(path.join(ws, 'real/deeper'), { recursive: true });
  symlinkSync(outside, path.join(ws, 'real/deeper/link'));
  expect(() => makeDirNoFollow(path.join(ws, 'real/deeper/link/more'))).toThrow(/link: it is a symlink/);
  writeFileSync(path.join(outside, 'victim.js'), 'safe');
  symlinkSync(path.join(outside, 'victim.js'), path.join(ws, 'real/file.txt'));
  expect(() => writeFileNoFollow(path.join(ws, 'real/file.txt'), 'pwned')).toThrow(
    /file\.txt: it is a symlink/,
  );
  expect(readFileSync(path.join(outside, 'victim.js'), 'utf8')).toBe('safe');
  expect(readdirSync(outside)).toEqual(['victim.js']);
  // `..` through a link is judged by the path as written, and written there, not at the link's target.
  writeFileNoFollow(path.join(ws, 'cache/../ok.txt'), 'fine');
  expect(readFileSync(path.join(ws, 'ok.txt'), 'utf8')).toBe('fine');
});

test('in the background: folders checked as the sync writer checks them; a link at the name is replaced, never followed', async () => {
  const { ws, outside } = setup();
  await writeFileNoFollowAsync(path.join(ws, 'a/b/c.json'), '{}');
  await writeFileNoFollowAsync(path.join(ws, 'a/b/d.json'), '[]');
  expect(readdirSync(path.join(ws, 'a/b')).sort()).toEqual(['c.json', 'd.json']);
  symlinkSync(outside, path.join(ws, 'cache'));
  await expect(writeFileNoFollowAsync(path.join(ws, 'cache/x/entry.json'), 'x')).rejects.toThrow(
    /cache: it is a symlink/,
  );
  writeFileSync(path.join(outside, 'victim.js'), 'safe');
  symlinkSync(path.join(outside, 'victim.js'), path.join(ws, 'a/b/e.json'));
  await writeFileNoFollowAsync(path.join(ws, 'a/b/e.json'), 'entry');
  expect(readFileSync(path.join(ws, 'a/b/e.json'), 'utf8')).toBe('entry');
  expect(readFileSync(path.join(outside, 'victim.js'), 'utf8')).toBe('safe');
  expect(readdirSync(outside)).toEqual(['victim.js']);
  await expect(writeFileNoFollowAsync(path.join(outside, 'r.json'), 'x')).rejects.toThrow(
    /outside the workspace and the runner's temp dir/,
  );
});

test('a file where a folder should be is refused', () => {
  const { ws } = setup();
  writeFileSync(path.join(ws, 'plain'), '');
  expect(() => writeFileNoFollow(path.join(ws, 'plain/x.json'), 'x')).toThrow(/plain: it is not a folder/);
});

test('confined: outside every root is refused; unconfined: written', () => {
  const { outside } = setup();
  expect(() => writeFileNoFollow(path.join(outside, 'r.json'), 'x')).toThrow(
    /outside the workspace and the runner's temp dir/,
  );
  unconfineWrites();
  writeFileNoFollow(path.join(outside, 'r.json'), 'x');
  expect(readFileSync(path.join(outside, 'r.json'), 'utf8')).toBe('x');
});

test('a runner file is opened to append or replace, never through a link at its name', () => {
  const { ws, outside } = setup();
  const file = path.join(ws, 'out.txt');
  writeFileSync(file, 'a');
  for (const [how, text] of [
    ['append', 'b'],
    ['truncate', 'c'],
  ] as const) {
    const fd = openExistingNoFollow(file, how);
    writeFileSync(fd, text);
  }
  expect(readFileSync(file, 'utf8')).toBe('c');
  writeFileSync(path.join(outside, 't'), 'keep');
  symlinkSync(path.join(outside, 't'), path.join(ws, 'linked.txt'));
  expect(() => openExistingNoFollow(path.join(ws, 'linked.txt'), 'append')).toThrow(/symlink/);
  // A FIFO at the name (a gate can make one) would block the open until read: refused at once.
  execFileSync('mkfifo', [path.join(ws, 'fifo')]);
  expect(() => openExistingNoFollow(path.join(ws, 'fifo'), 'append')).toThrow(/not a regular file/);
  expect(readFileSync(path.join(outside, 't'), 'utf8')).toBe('keep');
});
