import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * `npm run deadcode` (knip, configured in knip.jsonc) as part of `npm test`, so the README's test
 * command, CI and `.ci/run` all refuse an unused file, export, type or dependency.
 */
test('knip finds no unused file, export, type or dependency', async () => {
  const knip = path.join(REPO_ROOT, 'node_modules/knip/bin/knip.js');
  const { NODE_OPTIONS: _jestOnly, ...env } = process.env;
  const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
    execFile(
      process.execPath,
      [knip, '--no-progress', '--no-config-hints'],
      { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (err.code as number | null) : 0, out: `${stdout}${stderr}` }),
    );
  });
  // The findings are the failure message: each names its file and line.
  expect(run.out.trim()).toBe('');
  expect(run.code).toBe(0);
}, 180_000);
