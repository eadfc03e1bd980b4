import { type GitHubFileRef } from './types.js';

const GITHUB_BLOB = /^https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)\/blob\/([^?#]+)$/;

/**
 * `https://github.com/{owner}/{repo}/blob/{ref}/{path}` as AgentV accepts it, or null. The ref
 * and the path are kept together: a branch name may itself contain slashes.
 */
export function parseGitHubBlobUrl(url: string): GitHubFileRef | null {
  const m = GITHUB_BLOB.exec(url.trim());
  if (!m) return null;
  const refAndPath = decodeURIComponent(m[3]!);
  const segments = refAndPath.split('/');
  if (segments.length < 2 || segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return { url: url.trim(), owner: m[1]!, repo: m[2]!, refAndPath };
}

/** Every (ref, path) split of `refAndPath`, shortest ref first (`main/docs/a.md` → main + docs/a.md, ...). */
export function refPathSplits(refAndPath: string): { ref: string; path: string }[] {
  const segments = refAndPath.split('/');
  const out: { ref: string; path: string }[] = [];
  for (let i = 1; i < segments.length; i++)
    out.push({ ref: segments.slice(0, i).join('/'), path: segments.slice(i).join('/') });
  return out;
}
