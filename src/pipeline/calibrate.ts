import { type Config } from '../config/config.js';
import { calibrationLine } from '../report/calibration.js';
import { type CalibrationResults, shownCheck } from '../core/calibration-results.js';
import { type RunContext } from './context.js';
import { type Executed } from './execute.js';
import { type RunPlan } from './plan.js';
import { type MeasureDeps } from '../calibration/measure.js';
import {
  type LabelsReader,
  measureCalibration,
  planCalibration,
  withCalibration,
  workingTreeLabels,
} from '../calibration/stage.js';

/** What the run does with the labels: nothing without a `calibration` input. */
export interface CalibrationStep {
  /** Measures the judge on the labels while the cases run, then applies the floor to their results. */
  around(execution: Promise<Executed>): Promise<Executed & { calibration?: CalibrationResults }>;
}

const none: CalibrationStep = { around: (e) => e };

/**
 * The calibration stage as the pipeline calls it (the trusted `judge` stage can call it the
 * same way): reads and matches the labels before anything runs (a problem in them is invalid
 * input, pushed onto `errors`), judges the labelled answers alongside the cases, and makes the
 * checks below `min-judge-agreement` advisory in the cases' results.
 */
export async function calibrationStep(
  config: Pick<Config, 'calibration' | 'failOn' | 'concurrency'>,
  plan: RunPlan,
  ctx: Pick<RunContext, 'ws' | 'judges' | 'exec' | 'redactor' | 'signal' | 'info' | 'warn'>,
  errors: string[],
  read: LabelsReader = workingTreeLabels(ctx.ws),
): Promise<CalibrationStep> {
  if (!config.calibration || errors.length > 0) return none;
  const cp = await planCalibration(config, plan, read);
  if (!cp) return none;
  if (cp.errors.length > 0) {
    errors.push(...cp.errors);
    return none;
  }
  ctx.info(`calibration: ${cp.gating.length} labels from ${cp.file} (${cp.source})`);
  return {
    around: async (execution) => {
      const [executed, calibration] = await Promise.all([
        execution,
        measureCalibration(cp, {
          judgeFor: runJudgeFor(plan, ctx),
          exec: ctx.exec,
          redactor: ctx.redactor,
          concurrency: config.concurrency,
          signal: ctx.signal,
        }),
      ]);
      ctx.info(calibrationLine(calibration));
      for (const b of calibration.below_floor)
        ctx.warn(
          `${b.suite} › ${b.id} › ${shownCheck(b)}: ${cp.effect === 'advisory' ? 'advisory' : 'fails the check'}: ${b.reason}`,
        );
      return { ...executed, suites: withCalibration(executed.suites, plan, calibration), calibration };
    },
  };
}

/** Each case's judge: the run's one judge, the workflow's (nothing in the checkout picks another). */
export function runJudgeFor(plan: RunPlan, ctx: Pick<RunContext, 'judges'>): MeasureDeps['judgeFor'] {
  const judge = plan.defaultEndpoint ? ctx.judges.for(plan.defaultEndpoint) : null;
  return () => judge;
}
