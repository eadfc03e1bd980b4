import { type CaseResult, type EvaluatorResult, type SkipReason } from '../core/results.js';
import { refusedByBudget, type SpendMeter } from './budget.js';
import { caseUsesLlm } from './judge-endpoint.js';
import { type PlannedCase } from './plan.js';

/** A case never started: no answer, no judge, never a pass. */
export function skippedCase(planned: PlannedCase, reason: SkipReason): CaseResult {
  return {
    id: planned.evalCase.id,
    ...(planned.evalCase.label !== undefined ? { label: planned.evalCase.label } : {}),
    definition_hash: planned.definitionHash,
    line: planned.evalCase.pos.line,
    ...(planned.evalCase.sourcePath ? { file: planned.evalCase.sourcePath } : {}),
    verdict: 'skipped',
    skipped: reason,
    score: 0,
    gating_violations: [],
    evaluators: [],
    target: planned.target.runner.name,
    answer: null,
    duration_ms: 0,
  };
}

/** The endpoint refused the credential (HTTP 401 or 403), in any evaluator of the case. */
function refusedCredential(evaluators: readonly EvaluatorResult[]): boolean {
  return evaluators.some(
    (e) =>
      (e.verdict === 'error' && /\bHTTP 40[13]\b/.test(e.error ?? '')) || refusedCredential(e.children ?? []),
  );
}

/**
 * Which cases are not started, and which finished ones count as never judged: once the spend cap
 * is reached (`budget`), and on a pull request from a fork whose run has no judge credential, or
 * whose credential the judge refuses (`no-judge-credential`): one skip for the run, not one error
 * per case. A case that needs no judge still runs on a fork.
 */
export class CaseSkips {
  private credentialRefused = false;

  constructor(
    private readonly spend: SpendMeter | null,
    private readonly fork: { untrusted: boolean; noCredential: boolean },
  ) {}

  before(planned: PlannedCase): SkipReason | null {
    const judged = caseUsesLlm(planned.evalCase);
    if (judged && (this.fork.noCredential || this.credentialRefused)) return 'no-judge-credential';
    if (this.spend && !this.spend.allow()) return 'budget';
    return null;
  }

  after(planned: PlannedCase, result: CaseResult): CaseResult {
    if (result.verdict !== 'error') return result;
    if (this.spend && refusedByBudget(result.evaluators)) return skippedCase(planned, 'budget');
    if (this.fork.untrusted && refusedCredential(result.evaluators)) {
      this.credentialRefused = true;
      return skippedCase(planned, 'no-judge-credential');
    }
    return result;
  }
}
