import { type Subject, subjectFromDiff } from '../checker/subject.js';
import { type Octokit, type Repo } from './client.js';
import { boundedPages } from './pages.js';

/** The pull request as the checker's subject: title, body, changed files and the unified diff. */
export async function pullRequestSubject(
  octokit: Octokit,
  repo: Repo,
  pullNumber: number,
  title: string,
  body: string,
): Promise<Subject> {
  // GitHub lists at most 3,000 files (30 pages); the cap is a bound, not a limit in practice.
  const files = (
    await boundedPages(octokit, octokit.rest.pulls.listFiles, { ...repo, pull_number: pullNumber }, {})
  ).items;
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
