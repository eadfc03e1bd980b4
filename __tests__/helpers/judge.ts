import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JudgeCache } from '../../src/judge/cache.js';
import { Judge, type JudgeOptions } from '../../src/judge/judge.js';
import { AdaptiveLimiter } from '../../src/exec/limiter.js';
import { DEFAULT_PRICES } from '../../src/judge/pricing.js';
import { type CaseContext } from '../../src/judge/prompts.js';
import { type RubricSet } from '../../src/rubric/types.js';

export function makeJudge(
  url: string,
  overrides: Partial<JudgeOptions> & { timeoutMs?: number; model?: string } = {},
): Judge {
  const { timeoutMs, model, ...options } = overrides;
  return new Judge(
    {
      baseURL: url,
      apiKey: 'test-key',
      model: model ?? 'gpt-4.1-mini',
      azure: null,
      timeoutMs: timeoutMs ?? 5000,
    },
    {
      limiter: new AdaptiveLimiter(4),
      cache: new JudgeCache(null),
      retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 10_000 },
      prices: DEFAULT_PRICES,
      ...options,
    },
  );
}

export const tmpDir = (prefix = 're-') => mkdtempSync(path.join(os.tmpdir(), prefix));

export const ctx = (over: Partial<CaseContext> = {}): CaseContext => ({
  question: 'Explain how quicksort works',
  expectedOutcome: 'A clear explanation with time complexity',
  referenceAnswer: 'Quicksort picks a pivot, partitions, recurses. O(n log n) average.',
  candidateAnswer: 'Pick a pivot, partition around it, recurse on both sides. Average O(n log n).',
  inputMessagesJson: '[]',
  expectedMessagesJson: '[]',
  outputMessagesJson: '[]',
  ...over,
});

/** A checklist on the quicksort case of `ctx`: one required item, weights 1, 2, 1. */
export const QUICKSORT_CHECKLIST: RubricSet = {
  mode: 'checklist',
  items: [
    { id: 'divide', outcome: 'Mentions divide-and-conquer', weight: 1, required: true },
    { id: 'partition', outcome: 'Explains the partition step', weight: 2, required: false },
    { id: 'complexity', outcome: 'States time complexity', weight: 1, required: false },
  ],
};
