import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Where the judge cache goes off a runner: beside the suites, as before. */
export const LOCAL_CACHE_DIR = '.rubric-eval-cache';

/**
 * The judge cache's default place. On a runner: `$RUNNER_TEMP/rubric-eval-cache`, outside the
 * checkout, so nothing a pull request commits or its code writes into the workspace is read as a
 * cached verdict, and entries need no signature to be trusted; `actions/cache` restores it there
 * (the runner empties its temp folder after every job). Elsewhere, `.rubric-eval-cache`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  const temp = env.RUNNER_TEMP?.trim();
  return temp ? path.join(temp, 'rubric-eval-cache') : LOCAL_CACHE_DIR;
}

/**
 * Whether a cache directory lies in the checkout (the working directory or `GITHUB_WORKSPACE`),
 * by its path as given or once symlinks are followed: a pull request can put files there, so
 * its entries are served only when signed with the judge's own key (see `JudgeCache`). Either
 * test is enough: a committed symlink must not carry the cache out of the checkout's rules, nor a
 * path outside lead back into it.
 */
export function cacheInCheckout(dir: string, roots: readonly (string | undefined)[]): boolean {
  const real = realOf(dir);
  return roots.some((root) => {
    if (!root) return false;
    const r = path.resolve(root);
    return inside(r, dir) || inside(realOf(r), real);
  });
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended. */
function realOf(p: string): string {
  const abs = path.resolve(p);
  if (existsSync(abs)) {
    try {
      return realpathSync(abs);
    } catch {
      return abs;
    }
  }
  const parent = path.dirname(abs);
  return parent === abs ? abs : path.join(realOf(parent), path.basename(abs));
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, path.resolve(p));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
