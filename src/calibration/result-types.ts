import { type Usage } from '../core/results.js';
import { type CalibrationRow } from './measure.js';
import { type BinaryAgreement } from './stats.js';

/** A check whose κ is below `min-judge-agreement`: advisory, or a failure under `fail-on: calibration`. */
export interface BelowFloor {
  suite: string;
  id: string;
  check: string;
  n: number;
  kappa: number;
  reason: string;
}

/** The results file's `calibration` (README "Judge calibration"; CONTRACTS §12). */
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
}
