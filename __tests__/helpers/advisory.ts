import { type BelowFloor } from '../../src/core/calibration-results.js';
import { type CheckResult } from '../../src/core/results.js';

/** A check below the floor, in suite `s.yaml`, case `c`, of the evaluator at `evaluator`. */
export const advisory = (evaluator: string[], check = 'names-paris'): BelowFloor => ({
  suite: 's.yaml',
  id: 'c',
  check,
  evaluator,
  n: 12,
  kappa: 0,
  reason: 'κ 0.00 is below 0.6',
});

/** A checklist check as the run writes it. */
export const check = (id: string, satisfied: boolean, required = false): CheckResult => ({
  id,
  satisfied,
  weight: 1,
  required,
  reasoning: null,
});
