import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';
import { E2E_NODE } from './action.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled CLI (dist/cli.js) as a user would. */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(E2E_NODE, [path.join(REPO_ROOT, 'dist/cli.js'), ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      // No HOME unless a test gives one: the judge cache then falls back to the current folder
      // (a temp folder per test), so no test reads another's cache or the user's ~/.cache.
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
