import { type Config } from '../config/config.js';
import { type Diagnostic } from '../core/diagnostics.js';
import { type SettingNames } from '../core/setting-names.js';
import { createRunContext } from './context.js';
import { loadInputs } from './load.js';
import { planRun } from './plan.js';

/**
 * A run's checks before its first call: the run's own load and plan stages, stopped before
 * execute, so nothing runs and no model is called. Files are checked, not the keys of wherever
 * this runs: the judge's credentials are the run's, and with no targets file in reach a run may
 * still be given one or recorded answers (a warning, not an error).
 */
export async function validateRun(
  config: Config,
  o: { env: NodeJS.ProcessEnv; settings: SettingNames },
): Promise<{ cases: number; suites: number; diagnostics: Diagnostic[] }> {
  const ctx = createRunContext(config, { env: o.env, settings: o.settings });
  const loaded = await loadInputs(config, ctx.ws, { env: o.env, fetchRemote: false });
  const plan = planRun(loaded, config, ctx, { unsetEnv: 'warning' });
  return {
    suites: plan.suites.length,
    cases: plan.suites.reduce((n, s) => n + s.cases.length, 0),
    diagnostics: plan.diagnostics
      .filter((d) => d.rule !== 'judge-credentials')
      .map((d) => (d.rule === 'no-targets' ? { ...d, severity: 'warning' as const } : d)),
  };
}
