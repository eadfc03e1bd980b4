import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Everything the run starts (gates, CLI targets, code judges, prompt scripts) must be gone when
 * the action exits: a child that left its process group and session (setsid, a double fork)
 * and waits for the action to end could otherwise append `verdict=pass` to GITHUB_OUTPUT after
 * the action's own write. The process group alone does not find it, so a straggler is found by
 * any of: a marker in its environment (inherited by everything the command starts unless it
 * clears its environment), a session or group led by a command the run spawned, descent from
 * this process or from a process found. Linux only (/proc); elsewhere the groups are killed.
 */
export const PROCESS_MARK = 'RUBRIC_EVAL_PROCESS_MARK';
const token = randomBytes(12).toString('hex');
const marker = Buffer.from(`${PROCESS_MARK}=${token}\0`);
const inner = Buffer.concat([Buffer.from([0]), marker]);
const leaders = new Set<number>();
// Until the run starts a process there is nothing of its own to find: the scan of /proc (twice,
// at the end of every run) is skipped. Every place that starts one says so (markedEnv or
// noteChildProcess; a repository test holds every import of node:child_process to it).
let started = false;

/** The environment a command gets: the caller's, plus this run's marker. */
export function markedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  started = true;
  return { ...env, [PROCESS_MARK]: token };
}

/** A process about to be started without the marker (the run's own `git`): the reaper scans. */
export function noteChildProcess(): void {
  started = true;
}

/** A command spawned as the leader of its own session and group (`detached`). */
export function noteLeader(pid: number | undefined): void {
  if (pid !== undefined) leaders.add(pid);
}

interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
}

/**
 * Kills every process the run started that is still alive, stopped first (SIGSTOP) so that none
 * forks a replacement between finding and killing, then SIGKILL; repeated until a scan finds
 * none (bounded). Synchronous, so it can run in an `exit` handler. Returns how many were killed.
 */
export function reapStragglers(maxRounds = 20): number {
  if (!started) return 0;
  if (!hasProc()) return killLeaderGroups();
  let killed = 0;
  for (let round = 0; round < maxRounds; round++) {
    const found = findStragglers();
    if (found.length === 0) break;
    for (const pid of found) signal(pid, 'SIGSTOP');
    for (const pid of found) signal(pid, 'SIGKILL');
    killed += found.length;
  }
  return killed;
}

/** The live processes (zombies aside) that belong to the run, by marker, session, group or parent. */
export function findStragglers(): number[] {
  const procs = listProcs();
  const found = new Set<number>();
  for (const p of procs)
    if (leaders.has(p.session) || leaders.has(p.pgrp) || leaders.has(p.pid) || isMarked(p.pid))
      found.add(p.pid);
  // Descendants of this process, and of every process found, belong to the run too.
  const roots = new Set([process.pid, ...found]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs)
      if (roots.has(p.ppid) && !roots.has(p.pid)) {
        roots.add(p.pid);
        found.add(p.pid);
        grew = true;
      }
  }
  found.delete(process.pid);
  return [...found];
}

function listProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // `pid (comm) state ppid pgrp session ...`: comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || fields[0] === 'X') continue;
      out.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        pgrp: Number(fields[2]),
        session: Number(fields[3]),
      });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

function isMarked(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.subarray(0, marker.length).equals(marker) || environ.includes(inner);
  } catch {
    return false; // another user's process, or gone
  }
}

function hasProc(): boolean {
  try {
    readFileSync(`/proc/${process.pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

function killLeaderGroups(): number {
  let killed = 0;
  for (const pid of leaders) if (signal(-pid, 'SIGKILL')) killed++;
  return killed;
}

function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
