import { rmSync } from 'node:fs';
import path from 'node:path';
import { createRunContext } from '../../src/pipeline/context.js';
import { loadInputs } from '../../src/pipeline/load.js';
import { planRun } from '../../src/pipeline/plan.js';
import { validateRun } from '../../src/pipeline/validate.js';
import { CLI_SETTINGS } from '../../src/core/setting-names.js';
import { engineConfig } from '../helpers/engine.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';

const settings = CLI_SETTINGS;

test('a valid repository: its suites and cases counted, no problem', async () => {
  const root = makeFixtureRepo();
  const r = await validateRun(engineConfig(root, 'http://127.0.0.1:9/v1', { suites: ['evals/*.yaml'] }), {
    env: {},
    settings,
  });
  expect(r).toEqual({ suites: 1, cases: 2, diagnostics: [] });
});

test("the files are checked, not this machine's keys; a missing targets file only warns", async () => {
  const root = makeFixtureRepo();
  rmSync(path.join(root, '.agentv'), { recursive: true });
  // No judge key anywhere: a run would refuse to start, validate does not mind.
  const config = engineConfig(root, null, { suites: ['evals/*.yaml'] });
  const ctx = createRunContext(config, { env: {}, settings });
  const run = planRun(await loadInputs(config, ctx.ws, { env: {} }), config, ctx);
  expect(run.diagnostics.filter((d) => d.severity === 'error').map((d) => d.rule)).toContain(
    'judge-credentials',
  );
  const r = await validateRun(config, { env: {}, settings });
  expect(r.diagnostics.length).toBeGreaterThan(0);
  expect(new Set(r.diagnostics.map((d) => `${d.rule} ${d.severity}`))).toEqual(
    new Set(['no-targets warning']),
  );
  expect(r.cases).toBe(2);
});
