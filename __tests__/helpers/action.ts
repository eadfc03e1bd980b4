import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';
import { tmpDir } from './judge.js';

/** The Node that runs dist/: Node 24 in CI's second pass (RUBRIC_EVAL_E2E_NODE), else this one. */
export const E2E_NODE = process.env.RUBRIC_EVAL_E2E_NODE || process.execPath;

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  durationMs: number;
  /** The runner's GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, to read again later. */
  outputPath: string;
  summaryPath: string;
}

/** Parses GITHUB_OUTPUT's `name<<delimiter` blocks. */
function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out[m[1]!] = m[3]!;
  return out;
}

/**
 * Runs the committed dist/index.js as the runner does: inputs as INPUT_* variables, an event
 * file at GITHUB_EVENT_PATH, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, GITHUB_API_URL.
 */
export function runAction(opts: {
  workspace: string;
  inputs: Record<string, string>;
  event?: unknown;
  eventName?: string;
  apiUrl?: string;
  env?: Record<string, string>;
  onStart?: (pid: number) => void;
  /** Every piece of stdout as it arrives (to act at a point of the run, e.g. a `::group::`). */
  onStdout?: (chunk: string) => void;
  timeoutMs?: number;
}): Promise<ActionRun> {
  const dir = tmpDir('re-runner-');
  const eventPath = path.join(dir, 'event.json');
  const outputPath = path.join(dir, 'output.txt');
  const summaryPath = path.join(dir, 'summary.md');
  writeFileSync(eventPath, JSON.stringify(opts.event ?? {}));
  writeFileSync(outputPath, '');
  writeFileSync(summaryPath, '');
  mkdirSync(opts.workspace, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: opts.eventName ?? 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_WORKSPACE: opts.workspace,
    GITHUB_REPOSITORY: 'octo/repo',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    GITHUB_SHA: 'deadbeefcafe',
    GITHUB_API_URL: opts.apiUrl ?? 'http://127.0.0.1:9',
    RUNNER_TEMP: dir,
    ...opts.env,
  };
  for (const [k, v] of Object.entries(opts.inputs)) env[`INPUT_${k.replace(/ /g, '_').toUpperCase()}`] = v;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(E2E_NODE, [path.join(REPO_ROOT, 'dist/index.js')], {
      cwd: opts.workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    opts.onStart?.(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
      opts.onStdout?.(String(c));
    });
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseOutputFile(readFileSync(outputPath, 'utf8')),
        summary: readFileSync(summaryPath, 'utf8'),
        durationMs: Date.now() - started,
        outputPath,
        summaryPath,
      });
    });
  });
}
