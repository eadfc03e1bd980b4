import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { cacheInCheckout, defaultCacheDir, LOCAL_CACHE_DIR } from '../../src/judge/cache-place.js';
import { tmpDir } from '../helpers/judge.js';

test("the default cache is outside any checkout: RUNNER_TEMP on a runner, else the user's cache folder", () => {
  expect(defaultCacheDir({ RUNNER_TEMP: '/home/runner/work/_temp', HOME: '/home/runner' })).toBe(
    path.join('/home/runner/work/_temp', 'rubric-eval-cache'),
  );
  expect(defaultCacheDir({ HOME: '/home/ada' })).toBe(path.join('/home/ada', '.cache', 'rubric-eval'));
  expect(defaultCacheDir({ HOME: '/home/ada', XDG_CACHE_HOME: '/var/cache/ada' })).toBe(
    path.join('/var/cache/ada', 'rubric-eval'),
  );
  // A relative XDG_CACHE_HOME is invalid by the spec: ignored.
  expect(defaultCacheDir({ HOME: '/home/ada', XDG_CACHE_HOME: 'cache' })).toBe(
    path.join('/home/ada', '.cache', 'rubric-eval'),
  );
  // No home at all: the current folder, as before.
  expect(defaultCacheDir({})).toBe(LOCAL_CACHE_DIR);
  expect(defaultCacheDir({ RUNNER_TEMP: '  ' })).toBe(LOCAL_CACHE_DIR);
});

describe('cacheInCheckout', () => {
  const base = tmpDir('re-place-');
  const checkout = path.join(base, 'work', 'repo');
  const temp = path.join(base, 'temp');
  mkdirSync(path.join(checkout, 'app'), { recursive: true });
  mkdirSync(temp, { recursive: true });

  test('by path: in the working directory or anywhere in GITHUB_WORKSPACE, existing or not', () => {
    const roots = [path.join(checkout, 'app'), checkout];
    expect(cacheInCheckout(path.join(checkout, 'app', '.rubric-eval-cache'), roots)).toBe(true);
    expect(cacheInCheckout(path.join(checkout, '.cache', 'deep'), roots)).toBe(true);
    expect(cacheInCheckout(checkout, roots)).toBe(true);
    expect(cacheInCheckout(path.join(temp, 'rubric-eval-cache'), roots)).toBe(false);
    expect(cacheInCheckout(path.join(base, 'work', 'repo-other'), roots)).toBe(false);
    expect(cacheInCheckout(path.join(checkout, 'x'), [undefined, path.join(checkout, 'app')])).toBe(false);
  });

  test('a committed symlink does not carry a cache out of the checkout, nor a path outside lead back in', () => {
    const outward = path.join(checkout, 'to-temp');
    symlinkSync(temp, outward);
    expect(cacheInCheckout(path.join(outward, 'cache'), [checkout])).toBe(true);
    const inward = path.join(temp, 'to-checkout');
    symlinkSync(checkout, inward);
    expect(cacheInCheckout(path.join(inward, 'cache'), [checkout])).toBe(true);
    expect(cacheInCheckout(path.join(temp, 'cache'), [checkout])).toBe(false);
  });
});
