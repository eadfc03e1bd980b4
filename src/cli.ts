/** The CLI entry point (`rubric-eval`), bundled to dist/cli.js. */
import { runCli } from './cli/run-cli.js';
import { guardVerdict, refuseDebuggerSignal } from './exec/process-guard.js';

// Gates and targets run the checkout's code as this user: no debugger on SIGUSR1, and no exit 0
// before the verdict.
refuseDebuggerSignal();
const verdict = guardVerdict((m) => process.stderr.write(`rubric-eval: ${m}\n`));

const controller = new AbortController();
let interrupted = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // First signal: stop new work and write what finished. Second: leave now.
    if (++interrupted > 1) process.exit(130);
    process.stderr.write(`\nrubric-eval: ${signal}: stopping; finished cases are kept\n`);
    controller.abort();
  });
}

process.exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});
verdict.written();
