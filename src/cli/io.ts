import { RubricEvalError } from '../core/errors.js';

/** What the CLI needs from the world, so tests can run it in-process. */
export interface CliIO {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  signal?: AbortSignal;
}

export const EXIT_PASS = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;

/** Bad arguments or unreadable input files: exit 2 with the message and a pointer to --help. */
export class UsageError extends RubricEvalError {
  override name = 'UsageError';
}

/**
 * The judge's credentials in the CLI's environment (the action takes them as inputs instead):
 * RUBRIC_EVAL_JUDGE_API_KEY, else OPENAI_API_KEY; GITHUB_TOKEN judges with GitHub Models when
 * neither is set. An empty variable counts as unset.
 */
export function judgeCredentials(env: NodeJS.ProcessEnv): { apiKey?: string; githubToken?: string } {
  return {
    apiKey: env.RUBRIC_EVAL_JUDGE_API_KEY || env.OPENAI_API_KEY || undefined,
    githubToken: env.GITHUB_TOKEN || undefined,
  };
}
