import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { noteChildProcess, reapStragglers } from '../../src/exec/reaper.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { alive } from '../helpers/processes.js';

// Its own file, so the reaper module is fresh: nothing in this process has been noted yet.

const linux = existsSync('/proc/self/stat') ? test : test.skip;

linux(
  'a run that started no process scans nothing; once one is noted, its descendants are reaped',
  async () => {
    // Started behind the reaper's back: only a scan (it descends from this process) would find it.
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    expect(reapStragglers()).toBe(0);
    expect(alive(child.pid!)).toBe(true);
    noteChildProcess();
    expect(reapStragglers()).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 60 && alive(child.pid!); i++) await sleep(50);
    expect(alive(child.pid!)).toBe(false);
  },
);

test('every module that can start a process tells the reaper', () => {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name.endsWith('.ts')) files.push(path.join(dir, e.name));
  };
  walk(path.join(REPO_ROOT, 'src'));
  const starting = files.filter((f) => /from 'node:child_process'/.test(readFileSync(f, 'utf8')));
  expect(starting.length).toBeGreaterThan(0);
  for (const f of starting)
    expect([
      path.relative(REPO_ROOT, f),
      /\b(markedEnv|noteChildProcess)\(/.test(readFileSync(f, 'utf8')),
    ]).toEqual([path.relative(REPO_ROOT, f), true]);
});
