import { readFileSync } from 'node:fs';

/** Whether a process is running (Linux /proc): gone, a zombie or dead is not. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // `pid (comm) state ...`: comm may hold spaces and parentheses.
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}
