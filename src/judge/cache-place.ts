import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Where the judge cache goes with no runner and no home folder: the current folder. */
export const LOCAL_CACHE_DIR = '.rubric-eval-cache';

/**
 * The judge cache's default place, outside any checkout, so nothing a pull request commits or its
 * code writes into the workspace is read as a cached verdict, and entries need no signature (a
 * local judge with no key, or a placeholder one, still gets its cache across runs). On a runner:
 * `$RUNNER_TEMP/rubric-eval-cache`, where `actions/cache` restores it (the runner empties its temp
 * folder after every job). Elsewhere the user's cache folder: `$XDG_CACHE_HOME/rubric-eval`, else
 * `~/.cache/rubric-eval`; `.rubric-eval-cache` only when there is no home to put it in.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  const temp = env.RUNNER_TEMP?.trim();
  if (temp) return path.join(temp, 'rubric-eval-cache');
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rubric-eval');
  const home = env.HOME?.trim() || env.USERPROFILE?.trim();
  return home && path.isAbsolute(home) ? path.join(home, '.cache', 'rubric-eval') : LOCAL_CACHE_DIR;
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
