import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CORPUS, REPO_ROOT } from './helpers/paths.js';

const SHARED = path.resolve(REPO_ROOT, '../shared/corpus');

function files(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p, base) : [path.relative(base, p)];
  });
}

// The tests use a vendored copy of the compatibility corpus so a clone is self-contained; when
// the shared corpus sits beside the repository (as in CI), the copy must be identical to it.
(existsSync(SHARED) ? test : test.skip)('__fixtures__/corpus is an exact copy of ../shared/corpus', () => {
  expect(files(CORPUS).sort()).toEqual(files(SHARED).sort());
  for (const f of files(SHARED))
    expect([f, readFileSync(path.join(CORPUS, f), 'utf8')]).toEqual([
      f,
      readFileSync(path.join(SHARED, f), 'utf8'),
    ]);
});
