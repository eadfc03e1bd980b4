/** The action's entry point: everything happens in run(). */
import { refuseDebuggerSignal } from './exec/process-guard.js';
import { run } from './main.js';

// First, before any gate or target can run: no debugger for whoever sends SIGUSR1.
refuseDebuggerSignal();
await run();
