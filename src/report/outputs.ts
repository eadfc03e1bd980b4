import { type RunResults } from '../core/results.js';

/** The action's outputs, as `action.yml` declares them (a test keeps the two equal). */
export const OUTPUT_NAMES = [
  'verdict',
  'score',
  'passed',
  'borderline',
  'failed',
  'inconclusive',
  'results-file',
  'comment-url',
] as const;

export type OutputName = (typeof OUTPUT_NAMES)[number];

/** Every output of a run that finished: counts as strings, an errored case counted as failed. */
export function runOutputs(
  results: RunResults,
  resultsFile: string,
  commentUrl: string,
): Record<OutputName, string> {
  return {
    verdict: results.verdict,
    score: results.score.toFixed(4),
    passed: String(results.counts.pass),
    borderline: String(results.counts.borderline),
    failed: String(results.counts.fail + results.counts.error),
    inconclusive: String(results.counts.inconclusive ?? 0),
    'results-file': resultsFile,
    'comment-url': commentUrl,
  };
}

/** Invalid inputs: nothing ran, so only the verdict and where the results file says why. */
export function invalidInputOutputs(resultsFile: string): Partial<Record<OutputName, string>> {
  return { verdict: 'fail', 'results-file': resultsFile };
}
