import { type CommandResult, describeExit } from '../exec/run-command.js';
import { type ExecDeps } from '../exec/deps.js';
import { runScripts, ScriptBatchError, type ScriptCall, type ScriptReturn } from '../exec/script-runners.js';

/**
 * The suite's code calls of one case, run in one process per language: a case's assertions
 * start together (in one turn of the event loop), so the calls made before the next turn share
 * a process. A Node or Python start costs far more than a typical assertion, so a process per
 * assertion would be most of a run's time. A batch that fails as a whole (a timeout, a crash) is
 * run again one call per process, so one hanging assertion does not take its neighbours with it.
 */

interface Waiting {
  call: ScriptCall;
  resolve: (r: ScriptReturn) => void;
  reject: (e: Error) => void;
}

const open = new WeakMap<object, Map<string, Waiting[]>>();

/** Counts processes started, for tests and the measured cost per assertion. */
export const scriptProcesses = { started: 0 };

/** Runs `call` in the batch of `owner` (the case) for its language and folder. */
export function callScript(
  owner: object,
  language: 'javascript' | 'python',
  cwd: string,
  call: ScriptCall,
  deps: ExecDeps,
): Promise<ScriptReturn> {
  let batches = open.get(owner);
  if (!batches) open.set(owner, (batches = new Map()));
  const key = `${language}\u0000${cwd}`;
  let batch = batches.get(key);
  if (!batch) {
    const started: Waiting[] = [];
    batch = started;
    batches.set(key, started);
    const own = batches;
    setImmediate(() => {
      own.delete(key);
      void flush(language, cwd, started, deps);
    });
  }
  const list = batch;
  return new Promise((resolve, reject) => list.push({ call, resolve, reject }));
}

async function flush(
  language: 'javascript' | 'python',
  cwd: string,
  batch: readonly Waiting[],
  deps: ExecDeps,
): Promise<void> {
  try {
    const results = await run(language, cwd, batch, deps);
    batch.forEach((w, i) => w.resolve(results[i]!));
  } catch (err) {
    if (batch.length > 1 && err instanceof ScriptBatchError && !deps.signal?.aborted) {
      await Promise.all(batch.map((w) => flush(language, cwd, [w], deps)));
      return;
    }
    for (const w of batch) w.reject(err as Error);
  }
}

function run(
  language: 'javascript' | 'python',
  cwd: string,
  batch: readonly Waiting[],
  deps: ExecDeps,
): Promise<ScriptReturn[]> {
  scriptProcesses.started++;
  const program = language === 'javascript' ? 'node' : 'python3';
  return runScripts(
    language,
    batch.map((w) => w.call),
    cwd,
    deps,
    (r: CommandResult) => {
      const said = (r.stderrTail || r.output).trim();
      const tail = said.length > 800 ? `…${said.slice(-800)}` : said;
      const how = r.spawnError || r.timedOut || r.cancelled || r.signal || r.exitCode !== 0;
      const what = how
        ? `${program} ${describeExit(r, deps.commandTimeoutMs)}`
        : `${program} ended without a result`;
      return tail ? `${what}: ${tail}` : what;
    },
  );
}
