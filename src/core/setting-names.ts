/**
 * How the user sets each thing a message may tell them to fix: the action's inputs or the CLI's
 * flags and environment variables, so an error speaks the language of where it is read.
 */
export interface SettingNames {
  judgeBaseUrl: string;
  judgeApiKey: string;
  githubToken: string;
  /** Where the judge cache goes when not told, as the user would set it. */
  cacheDir: string;
}

export const ACTION_SETTINGS: SettingNames = {
  judgeBaseUrl: '`judge-base-url`',
  judgeApiKey: '`judge-api-key`',
  githubToken: '`github-token` with `permissions: models: read`',
  cacheDir: 'leave `cache-dir` unset for the default, $RUNNER_TEMP/rubric-eval-cache',
};

export const CLI_SETTINGS: SettingNames = {
  judgeBaseUrl: '--judge-base-url',
  judgeApiKey: 'RUBRIC_EVAL_JUDGE_API_KEY (or OPENAI_API_KEY)',
  githubToken: 'GITHUB_TOKEN',
  cacheDir:
    'leave --cache-dir unset for the default, ~/.cache/rubric-eval ($XDG_CACHE_HOME/rubric-eval when set)',
};

/** What to do about a judge that failed, when the failure says what it is. */
export function judgeFix(
  failure: { unreachable: boolean; status: number | null },
  url: string,
  names: SettingNames,
): string | null {
  if (failure.unreachable) return `is the judge running at ${url}? set ${names.judgeBaseUrl}`;
  if (failure.status === 401 || failure.status === 403)
    return `the judge at ${url} refused the key: check ${names.judgeApiKey}, or ${names.githubToken} for GitHub Models`;
  if (failure.status === 404)
    return `the judge at ${url} does not know this model or path: check the model id and ${names.judgeBaseUrl}`;
  return null;
}
