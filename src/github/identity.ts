import { type Octokit } from './client.js';

/** The login the workflow token (`secrets.GITHUB_TOKEN`, `github.token`) writes comments as. */
export const WORKFLOW_BOT = 'github-actions[bot]';

/** Who writes with the token: only comments by this login are ever the action's own. */
export interface Identity {
  login: string;
  /** How the login was learnt: the workflow token's known bot, or `GET /user`. */
  source: 'workflow-token' | 'user-endpoint';
}

/**
 * The identity of `github-token`, asked once per run. An installation token (`ghs_`, what the
 * workflow token is) writes as `github-actions[bot]` and cannot call `GET /user`; any other
 * token is asked. When GitHub refuses to say, the answer is null: the caller then creates a new
 * comment and edits nothing, since it cannot tell its own comments from anyone else's.
 */
export async function tokenIdentity(
  octokit: Octokit,
  token: string,
  warn: (m: string) => void,
): Promise<Identity | null> {
  if (token.startsWith('ghs_')) return { login: WORKFLOW_BOT, source: 'workflow-token' };
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return { login: data.login, source: 'user-endpoint' };
  } catch (err) {
    const status = (err as { status?: number }).status;
    warn(
      `could not learn who github-token is (GET /user${status ? `: HTTP ${status}` : ''}); a new PR comment is posted and no existing comment is edited`,
    );
    return null;
  }
}

/** Is this comment author the token's identity? Logins are case-insensitive on GitHub. */
export function isOwnAuthor(
  user: { login?: string; type?: string } | null | undefined,
  me: Identity | null,
): boolean {
  if (!me || !user?.login) return false;
  if (me.source === 'workflow-token' && user.type !== undefined && user.type !== 'Bot') return false;
  return user.login.toLowerCase() === me.login.toLowerCase();
}
