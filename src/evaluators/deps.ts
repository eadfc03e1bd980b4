import { type Redactor } from '../exec/redact.js';
import { type AdaptiveLimiter } from '../judge/limiter.js';

/** What evaluators that run processes need. */
export interface ExecDeps {
  /** Bounds local processes (code judges), separately from model calls. */
  processLimiter: AdaptiveLimiter;
  redactor: Redactor;
  childEnv: NodeJS.ProcessEnv;
  commandTimeoutMs: number;
  signal?: AbortSignal;
}
