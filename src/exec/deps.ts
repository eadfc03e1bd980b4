import { type Redactor } from '../exec/redact.js';
import { type AdaptiveLimiter } from './limiter.js';

/** What anything that runs a user's commands needs: code judges, prompt scripts, the checker's gates. */
export interface ExecDeps {
  /** Bounds local processes, separately from model calls. */
  processLimiter: AdaptiveLimiter;
  redactor: Redactor;
  childEnv: NodeJS.ProcessEnv;
  commandTimeoutMs: number;
  signal?: AbortSignal;
}
