import { type Subject, subjectFromDiff } from '../checker/subject.js';
import { type Octokit, type Repo } from './client.js';
import { boundedPages } from './pages.js';

/** One changed file of a pull request, as the API lists it. */
export type PullRequestFile = Awaited<ReturnType<Octokit['rest']['pulls']['listFiles']>>['data'][number];

/** The pull request's changed files. GitHub lists at most 3,000 (30 pages): the cap is a bound, not a limit in practice. */
export async function listPullRequestFiles(
  octokit: Octokit,
  repo: Repo,
  pullNumber: number,
): Promise<PullRequestFile[]> {
  return (await boundedPages(octokit, octokit.rest.pulls.listFiles, { ...repo, pull_number: pullNumber }, {}))
    .items;
}

/**
 * The pull request as the checker's subject: title, body, changed files and the unified diff.
 * `listed`: the files when the caller has listed them already (the judge stage needs them too).
 */
export async function pullRequestSubject(
  octokit: Octokit,
  repo: Repo,
  pullNumber: number,
  title: string,
  body: string,
  listed?: PullRequestFile[],
): Promise<Subject> {
  const files = listed ?? (await listPullRequestFiles(octokit, repo, pullNumber));
  let diff: string;
  try {
    const r = await octokit.rest.pulls.get({
      ...repo,
      pull_number: pullNumber,
      mediaType: { format: 'diff' },
    });
    diff = r.data as unknown as string;
  } catch {
    // Very large diffs are refused by the diff media type; the per-file patches still come.
    diff = files
      .map(
        (f) => `diff --git a/${f.filename} b/${f.filename}\n${f.patch ?? '(binary or too large to show)'}\n`,
      )
      .join('');
  }
  const s = subjectFromDiff('pull_request', title, body, typeof diff === 'string' ? diff : '');
  // The file list comes from the API (complete even when the diff was trimmed).
  return { ...s, files: files.map((f) => `${f.filename} (${f.status}, +${f.additions} −${f.deletions})`) };
}
