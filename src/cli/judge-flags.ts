import { type ParseArgsConfig } from 'node:util';
import { judgeCredentials } from './io.js';

/**
 * The flags that say which targets answer and which judge grades, with its samples, concurrency
 * and cache: `run` and `calibrate` take them alike (calibrate judges as a run would, so its cache
 * entries are the run's).
 */
export const judgeFlags = {
  targets: { type: 'string' },
  target: { type: 'string' },
  'judge-model': { type: 'string' },
  'embedding-model': { type: 'string' },
  'judge-base-url': { type: 'string' },
  'judge-timeout': { type: 'string' },
  'judge-samples': { type: 'string' },
  concurrency: { type: 'string' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

type JudgeFlagValues = {
  [K in keyof typeof judgeFlags]?: (typeof judgeFlags)[K]['type'] extends 'boolean' ? boolean : string;
};

/** Those flags, and the judge's keys from the environment, as the action's inputs name them. */
export function judgeInputs(v: JudgeFlagValues, env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const credentials = judgeCredentials(env);
  return {
    targets: v.targets,
    target: v.target,
    'judge-model': v['judge-model'],
    'embedding-model': v['embedding-model'],
    'judge-base-url': v['judge-base-url'],
    'judge-api-key': credentials.apiKey,
    'github-token': credentials.githubToken,
    'judge-timeout': v['judge-timeout'],
    'judge-samples': v['judge-samples'],
    concurrency: v.concurrency,
    'cache-dir': v['cache-dir'],
  };
}
