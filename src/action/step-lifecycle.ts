import os from 'node:os';
import { confineWrites } from '../core/safe-write.js';
import { reapStragglers } from '../exec/reaper.js';
import { guardVerdict } from '../exec/process-guard.js';
import * as core from '../github/workflow-commands.js';
import { restoreStepFiles, stepFilesAtStart, type StepFilesAtStart } from '../github/step-files.js';

/**
 * The step's lifecycle around the action's work: writes confined, SIGINT and SIGTERM turned into
 * the work's cancel, a throw turned into a failed check, and the final word (reaping, the step
 * files put back) whichever way the process ends.
 */
export async function runStep(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const atStart = stepFilesAtStart(process.env);
  // The checkout's links never redirect a write, and nothing is written outside these.
  confineWrites([process.env.GITHUB_WORKSPACE || process.cwd(), process.env.RUNNER_TEMP, os.tmpdir()]);
  // Whatever way the process ends, nothing the run started outlives it or has the last word.
  process.on('exit', () => finalWord(atStart));
  const verdict = guardVerdict((m) => core.error(m));
  const controller = new AbortController();
  const onSignal = (signal: string) => () => {
    if (!controller.signal.aborted)
      core.warning(`${signal} received: stopping; finished cases are reported and the check fails`);
    controller.abort();
  };
  process.once('SIGINT', onSignal('SIGINT'));
  process.once('SIGTERM', onSignal('SIGTERM'));
  try {
    await work(controller.signal);
  } catch (err) {
    core.setFailed(err instanceof Error ? err.message : `rubric-eval failed: ${String(err)}`);
  }
  finalWord(atStart, true);
  verdict.written();
  // After a cancel, a wait left inside Octokit (a rate-limit pause) must not hold the process open.
  if (controller.signal.aborted) process.exit(process.exitCode ?? 1);
}

/**
 * The action's last word: every process the run started is killed (exec/reaper.ts), then the
 * runner's step files are put back to the action's own writes (github/step-files.ts).
 */
function finalWord(atStart: StepFilesAtStart, say = false): void {
  const killed = reapStragglers();
  const changed = restoreStepFiles(atStart);
  if (!say) return;
  if (killed > 0)
    core.warning(`${killed} process(es) started by the run were still running when it ended: killed`);
  if (changed.length > 0)
    core.warning(
      `${changed.join(', ')} had been written by code the run executed: put back to what the action wrote`,
    );
}

/**
 * Before the action writes its outputs and summary through core: nothing the run started may
 * still be there to write between them (the end of the run reaps again, exec/reaper.ts).
 */
export function reapBeforeReport(): void {
  const early = reapStragglers();
  if (early > 0) core.warning(`${early} process(es) started by the run were still running after it: killed`);
}
