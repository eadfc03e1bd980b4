import { type Config } from '../../src/config/config.js';
import { DEFAULT_PRICES } from '../../src/judge/pricing.js';

/** A Config as the action would build it, pointed at a scripted judge. */
export function engineConfig(
  workingDirectory: string,
  judgeUrl: string | null,
  over: Partial<Config> = {},
): Config {
  return {
    workingDirectory,
    suites: [],
    rubric: null,
    targets: null,
    target: null,
    answersFile: null,
    judge: {
      model: 'gpt-4.1-mini',
      baseURL: judgeUrl,
      apiKey: judgeUrl ? 'sk-test-judge-0000' : null,
      githubToken: null,
      timeoutMs: 5000,
      prices: DEFAULT_PRICES,
    },
    cacheDir: null,
    cacheMode: 'off',
    concurrency: 4,
    failOn: 'fail',
    gateTimeoutMs: 20_000,
    resultsFile: '',
    diffFile: null,
    baseRef: null,
    judgeSamples: 1,
    baseline: { mode: 'off', margin: 0.1 },
    ...over,
  };
}
