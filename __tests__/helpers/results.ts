import { type CaseResult, countCases, type RunResults } from '../../src/core/results.js';
import { DEFINITION_VERSION } from '../../src/suite/definition-hash.js';

export type Row = [suite: string, id: string, verdict: CaseResult['verdict'], score: number, hash?: string];

/** A results file as the engine writes it, from (suite, id, verdict, score, hash) rows. */
export function resultsOf(rows: Row[], over: Partial<RunResults> = {}): RunResults {
  const counts = countCases(rows.map((r) => r[2]));
  const suites = new Map<string, CaseResult[]>();
  for (const [suite, id, verdict, score, hash] of rows) {
    const list = suites.get(suite) ?? [];
    list.push({
      id,
      verdict,
      score,
      gating_violations: [],
      evaluators: [],
      target: 'default',
      answer: null,
      duration_ms: 1,
      ...(hash ? { definition_hash: hash } : {}),
    });
    suites.set(suite, list);
  }
  return {
    version: 1,
    verdict: counts.fail || counts.error ? 'fail' : counts.borderline ? 'borderline' : 'pass',
    score: 0.5,
    counts,
    suites: [...suites].map(([path, cases]) => ({ path, description: null, cases })),
    rubric: null,
    usage: { judge_calls: 0, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
    partial: false,
    errors: [],
    warnings: [],
    history: [],
    judge: null,
    started_at: '2026-11-23T00:00:00Z',
    duration_ms: 1,
    definition_version: DEFINITION_VERSION,
    ...over,
  };
}
