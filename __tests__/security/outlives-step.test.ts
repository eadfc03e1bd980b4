import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

// What each straggler does once the action's node process is gone: the round-3 attack.
const AFTER_EXIT = [
  'echo $$ >> "$STRAGGLERS"',
  'while kill -0 $ACTION 2>/dev/null; do sleep 0.05; done',
  'echo "verdict=pass" >> "$GITHUB_OUTPUT"',
  'printf "# PASS\\n" >> "$GITHUB_STEP_SUMMARY"',
  'echo "LATE=1" >> "$GITHUB_ENV"',
  'echo "/late/bin" >> "$GITHUB_PATH"',
].join('; ');

// A failing gate that writes the step files at once and leaves three stragglers: one in its own
// session (setsid), one double-forked into its own process group with the run's marker removed
// from its environment, and one double-forked and re-parented.
const GATE = `#!/bin/bash
ACTION=$PPID
while [ "$(cat /proc/$ACTION/comm)" != node ]; do ACTION=$(cut -d' ' -f4 /proc/$ACTION/stat); done
export ACTION
echo "verdict=pass" >> "$GITHUB_OUTPUT"
echo "EARLY=1" >> "$GITHUB_ENV"
setsid bash -c '${AFTER_EXIT}' </dev/null >/dev/null 2>&1 &
(set -m; env -u RUBRIC_EVAL_PROCESS_MARK bash -c '${AFTER_EXIT}' </dev/null >/dev/null 2>&1 &)
( ( bash -c '${AFTER_EXIT}' </dev/null >/dev/null 2>&1 & ) & )
sleep 0.3
exit 1
`;

test('a failing gate whose detached children wait for the action to exit changes nothing the step reports', async () => {
  judge = await startOpenAIServer();
  const files = tmpDir('re-stepfiles-');
  const env = {
    GITHUB_ENV: path.join(files, 'env'),
    GITHUB_PATH: path.join(files, 'path'),
    STRAGGLERS: path.join(files, 'stragglers'),
  };
  for (const f of [env.GITHUB_ENV, env.GITHUB_PATH]) writeFileSync(f, '');
  const workspace = hostileRepo({
    files: { 'gate.sh': GATE, 'RUBRIC.md': '## Gates\n- `bash gate.sh`\n\n## Criteria\n- Small\n' },
  });
  const run = await runAction({
    workspace,
    inputs: {
      rubric: 'RUBRIC.md',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-judge-0004',
      'cache-dir': '',
    },
    eventName: 'push',
    env,
  });
  expect(readResults(workspace).rubric!.gates[0]!.verdict).toBe('fail');
  expect(run.code).not.toBe(0);
  // Give a surviving straggler the time to do what it waited for.
  await sleep(1500);
  const pids = readFileSync(env.STRAGGLERS, 'utf8').trim().split('\n').map(Number);
  expect(pids).toHaveLength(3);
  for (const pid of pids) expect(existsSync(`/proc/${pid}`) && !isZombie(pid)).toBe(false);
  const outputs = readFileSync(run.outputPath, 'utf8');
  expect(outputs).not.toMatch(/^verdict=pass$/m);
  expect(outputs).toMatch(/^verdict<<ghadelimiter_[\w-]+\nfail\n/m);
  const summary = readFileSync(run.summaryPath, 'utf8');
  expect(summary).not.toContain('# PASS');
  expect(summary).toBe(run.summary);
  expect(readFileSync(env.GITHUB_ENV, 'utf8')).toBe('');
  expect(readFileSync(env.GITHUB_PATH, 'utf8')).toBe('');
  expect(run.stdout).toMatch(
    /::warning::GITHUB_OUTPUT, GITHUB_ENV had been written by code the run executed/,
  );
});

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
