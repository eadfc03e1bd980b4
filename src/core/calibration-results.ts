/** The results file's `calibration`: the judge measured against people's labels (README "Judge calibration"). */

import { type Usage } from './usage.js';

/** A check whose κ is below `min-judge-agreement`: advisory, or a failure under `fail-on: calibration`. */
export interface BelowFloor extends CheckOf {
  n: number;
  kappa: number;
  reason: string;
}

/** The results file's `calibration` (README "Judge calibration"). */
export interface CalibrationResults {
  /** The labels file, as the inputs name it. */
  file: string;
  /** Where the labels that gate were read: `base <sha>` on a pull request, else `working tree`. */
  source: string;
  labels: number;
  /** `min-judge-agreement`; null when off. */
  floor: number | null;
  overall: BinaryAgreement;
  /** Per check, worst first. */
  rows: CalibrationRow[];
  below_floor: BelowFloor[];
  /** What a check below the floor does: stops gating (`advisory`) or fails the check (`fail-on: calibration`). */
  effect: 'advisory' | 'fails';
  /** Labelled answers the judge could not grade. */
  errors: { line: number; suite: string; id: string; error: string }[];
  /** The pull request's own labels, measured the same way: shown, never gating. Null when it does not change them. */
  after_merge: {
    labels: number;
    overall: BinaryAgreement;
    rows: CalibrationRow[];
    below_floor: BelowFloor[];
  } | null;
  /** The judge calls calibration made (cached ones counted apart, as for cases). */
  usage: Usage;
  /** Why the pull request's labels could not be measured (invalid, or the file deleted). */
  after_merge_error?: string;
  /** A merge of shards that measured the same gate with different figures: whose figures these are. */
  note?: string;
}

export interface BinaryAgreement {
  n: number;
  agreement: number | null;
  kappa: number | null;
  kappa_low: number | null;
  kappa_high: number | null;
  tpr: number | null;
  tnr: number | null;
  judge_yes_human_no: number;
  judge_no_human_yes: number;
  /** Why `kappa` is null, when it is. */
  kappa_note?: string;
}

export interface RangeAgreement extends BinaryAgreement {
  weighted_kappa: number | null;
  mae: number | null;
}

/**
 * One check of one evaluator of one case: a rubric item's id is unique within its rubrics list
 * only, so the evaluator it belongs to is part of its address.
 */
export interface CheckOf {
  suite: string;
  id: string;
  /** The rubric item's id. */
  check: string;
  /** The evaluators' names from the case down to the judge that grades the check (composites included). */
  evaluator: string[];
  /** How a label names this check when its id alone is shared by another evaluator of the case (`tone/rubric-1`). */
  qualified?: string;
}

/** One check of one case against its labels (README "Judge calibration"). */
export type CalibrationRow = CheckOf & { kind: 'checklist' | 'range' } & (BinaryAgreement | RangeAgreement);

/** A check as reports name it: its id, or the qualified name a label needs when the id is shared. */
export const shownCheck = (c: Pick<CheckOf, 'check' | 'qualified'>): string => c.qualified ?? c.check;
