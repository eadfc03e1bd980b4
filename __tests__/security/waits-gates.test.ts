import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startGitHubServer, type FakeGitHub } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { PR_EVENT } from '../helpers/fixture-repo.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';

let judge: FakeOpenAI;
let github: FakeGitHub;
let workspace: string;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  // The background child the gate left behind: ended by the pid it wrote, nothing broader.
  const pidFile = path.join(workspace, 'bg.pid');
  if (existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

/** A child in its own session (out of the gate's process group) that keeps the output pipe open for 30 s. */
const ESCAPE = 'setsid sleep 30 & echo $! > bg.pid';

async function runGate(gate: string, opts: { timeout?: string; cancelAfterMs?: number } = {}) {
  judge = await startOpenAIServer();
  github = await startGitHubServer();
  workspace = hostileRepo({ files: { 'RUBRIC.md': `## Gates\n- \`${gate}\`\n\n## Criteria\n- Small\n` } });
  let sentAt = 0;
  const run = await runAction({
    workspace,
    inputs: {
      rubric: 'RUBRIC.md',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-key-0003',
      'github-token': 'ghs_workflow_token_0',
      'cache-dir': '',
      ...(opts.timeout ? { 'gate-timeout': opts.timeout } : {}),
    },
    event: PR_EVENT,
    apiUrl: github.url,
    onStart: (pid) => {
      if (opts.cancelAfterMs)
        setTimeout(() => {
          sentAt = Date.now();
          process.kill(pid, 'SIGTERM');
        }, opts.cancelAfterMs);
    },
  });
  return { run, exitedAfterSignal: Date.now() - sentAt };
}

test('a gate that exits while a child it left holds the output pipe is done at its exit plus a short drain', async () => {
  const { run } = await runGate(`${ESCAPE}; echo started`);
  const gate = readResults(workspace).rubric!.gates[0]!;
  expect(gate).toMatchObject({ verdict: 'pass', exit_code: 0, timed_out: false });
  expect(gate.output).toContain('started');
  expect(gate.duration_ms).toBeLessThan(2000);
  // The action's own process ends too: the child's pipe does not keep it alive for 30 s.
  expect(run.durationMs).toBeLessThan(10_000);
  expect(run.code).toBe(0);
  expect(run.outputs.verdict).toBe('pass');
});

test('a gate past its timeout with such a child is killed and done within the timeout plus the drain', async () => {
  const { run } = await runGate(`${ESCAPE}; sleep 30`, { timeout: '2' });
  const gate = readResults(workspace).rubric!.gates[0]!;
  expect(gate).toMatchObject({ verdict: 'fail', timed_out: true });
  expect(gate.duration_ms).toBeLessThan(4000);
  expect(run.durationMs).toBeLessThan(10_000);
  expect(run.code).toBe(1);
  expect(run.outputs.verdict).toBe('fail');
});

test('cancel during such a gate writes the partial results and exits within 5 s', async () => {
  const { run, exitedAfterSignal } = await runGate(`${ESCAPE}; sleep 30`, { cancelAfterMs: 1500 });
  expect(exitedAfterSignal).toBeLessThan(5000);
  expect(run.code).not.toBe(0);
  const results = readResults(workspace);
  expect(results).toMatchObject({ partial: true, verdict: 'fail' });
  expect(run.summary).toContain('The run was cancelled');
});
