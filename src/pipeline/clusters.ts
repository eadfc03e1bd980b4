import { type SuiteResult } from '../core/results.js';
import { type EvalSuite } from '../suite/types.js';

/**
 * Every case result carries its suite's `cluster` for it (docs/effect.md), so
 * that a later comparison, from this results file alone, resamples the cases that move together
 * as one. Set in place, after execution, as one step for every way a case result is made.
 */
export function stampClusters(results: readonly SuiteResult[], suites: readonly EvalSuite[]): void {
  const clusters = new Map<string, string>();
  for (const s of suites)
    for (const c of s.cases) if (c.cluster !== undefined) clusters.set(`${s.path}\0${c.id}`, c.cluster);
  if (clusters.size === 0) return;
  for (const s of results)
    for (const c of s.cases) {
      const cluster = clusters.get(`${s.path}\0${c.id}`);
      if (cluster !== undefined) c.cluster = cluster;
    }
}
