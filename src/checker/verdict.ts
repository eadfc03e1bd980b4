import { type GateResult, type CriterionResult, type CheckerCounts } from '../core/results.js';

/** What the checker concluded, counted: gates, must-haves and nice-to-haves passed of each. */
export function checkerCounts(
  gates: readonly GateResult[],
  checks: readonly CriterionResult[],
): CheckerCounts {
  const must = checks.filter((c) => c.kind === 'must');
  const nice = checks.filter((c) => c.kind === 'nice');
  return {
    gates_passed: gates.filter((g) => g.verdict === 'pass').length,
    gates_total: gates.length,
    must_passed: must.filter((c) => c.satisfied === true).length,
    must_total: must.length,
    nice_passed: nice.filter((c) => c.satisfied === true).length,
    nice_total: nice.length,
  };
}

/** `gates: 1/2 · must: 2/3 · nice: 1/2`, leaving out the parts a rubric does not have. */
export function formatCheckerCounts(c: CheckerCounts): string {
  const parts: string[] = [];
  if (c.gates_total > 0) parts.push(`gates: ${c.gates_passed}/${c.gates_total}`);
  if (c.must_total > 0) parts.push(`must: ${c.must_passed}/${c.must_total}`);
  if (c.nice_total > 0) parts.push(`nice: ${c.nice_passed}/${c.nice_total}`);
  return parts.join(' · ');
}

/**
 * The checker's verdict on a markdown rubric: any gate failing, any must-have not satisfied (or not
 * judged), a judge error, or `terminate` fails; nice-to-haves never block. The score is the share
 * of gates and must-haves that passed.
 */
export function checkerVerdict(input: {
  gates: readonly GateResult[];
  checks: readonly CriterionResult[];
  judgeVerdict: 'accept' | 'retry' | 'terminate' | null;
  judgeError: boolean;
}): { verdict: 'pass' | 'fail'; score: number } {
  const must = input.checks.filter((c) => c.kind === 'must');
  const passedItems =
    input.gates.filter((g) => g.verdict === 'pass').length + must.filter((c) => c.satisfied === true).length;
  const total = input.gates.length + must.length;
  let score = total === 0 ? 0 : passedItems / total;
  if (input.judgeVerdict === 'terminate' || input.judgeError) score = 0;
  const fail =
    input.judgeError ||
    input.judgeVerdict === 'terminate' ||
    input.gates.some((g) => g.verdict !== 'pass') ||
    must.some((c) => c.satisfied !== true);
  return { verdict: fail ? 'fail' : 'pass', score };
}
