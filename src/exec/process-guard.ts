import inspector from 'node:inspector';

/**
 * The code a run executes (gates, CLI targets, code judges) runs as the same user as this
 * process and can signal it. On SIGUSR1 Node opens its inspector on 127.0.0.1:9229, and any
 * local process that connects runs code in ours: it could end the run with exit 0 before the
 * verdict exists. A JavaScript listener takes the signal from Node's own handler (Node 20 and 24;
 * the security tests send the signal to prove it); should the inspector be open all the same,
 * it is closed. `--inspect` at startup still works for whoever debugs on purpose.
 */
export function refuseDebuggerSignal(): void {
  if (process.platform === 'win32') return; // no SIGUSR1 there
  process.on('SIGUSR1', () => {
    if (inspector.url() !== undefined) inspector.close();
  });
}

/**
 * Until `written()` is called, every way out of the process is a failure: an exit that would
 * report success (an explicit `process.exit(0)`, an event loop that ran dry mid-run) is turned
 * into exit code 1 with one line saying why. The verdict alone may end a run green.
 */
export function guardVerdict(say: (message: string) => void): { written(): void } {
  let written = false;
  process.on('exit', (code) => {
    if (written || code !== 0) return;
    process.exitCode = 1;
    say('rubric-eval ended before writing its verdict: the check fails');
  });
  return {
    written: () => {
      written = true;
    },
  };
}
