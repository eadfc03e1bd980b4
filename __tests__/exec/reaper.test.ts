import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redactor } from '../../src/exec/redact.js';
import { findStragglers, PROCESS_MARK, reapStragglers } from '../../src/exec/reaper.js';
import { runCommand } from '../../src/exec/run-command.js';
import { tmpDir } from '../helpers/judge.js';
import { alive } from '../helpers/processes.js';

const linux = existsSync('/proc/self/stat') ? test : test.skip;

/** Polls for up to 3 s: a signalled process is gone a moment later, longer on a loaded machine. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 60 && !done(); i++) await sleep(50);
}

linux('children that left the group and session, or cleared the marker, are found and killed', async () => {
  const dir = tmpDir('re-reap-');
  const pids = `${dir}/pids`;
  const r = await runCommand({
    command: [
      `setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $! >> ${pids}`,
      `(set -m; env -u ${PROCESS_MARK} sleep 61 </dev/null >/dev/null 2>&1 & echo $! >> ${pids})`,
      `( ( sleep 62 </dev/null >/dev/null 2>&1 & echo $! >> ${pids} ) & )`,
      // Until all three have written their pid (a loaded machine may take a while to fork).
      `for i in $(seq 100); do [ "$(wc -l < ${pids})" -ge 3 ] && break; sleep 0.05; done`,
    ].join('\n'),
    cwd: dir,
    timeoutMs: 10_000,
    env: { PATH: process.env.PATH },
    redactor: new Redactor([]),
  });
  expect(r.exitCode).toBe(0);
  const left = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
  expect(left).toHaveLength(3);
  // The double-forked one stayed in the command's group, which the runner already ended; the
  // other two left it (a session of their own; a group of their own without the marker).
  await until(() => !alive(left[2]!));
  const survivors = left.filter(alive);
  expect(survivors).toEqual(left.slice(0, 2));
  expect(findStragglers()).toEqual(expect.arrayContaining(survivors));
  expect(reapStragglers()).toBeGreaterThanOrEqual(2);
  await until(() => left.every((p) => !alive(p)));
  expect(left.filter(alive)).toEqual([]);
  expect(findStragglers()).toEqual([]);
});

linux('the marker is in every command environment', async () => {
  const r = await runCommand({
    command: `printenv ${PROCESS_MARK}`,
    cwd: tmpDir(),
    timeoutMs: 5000,
    env: { PATH: process.env.PATH },
    redactor: new Redactor([]),
  });
  expect(r.stdout.trim()).toMatch(/^[0-9a-f]{24}$/);
});
