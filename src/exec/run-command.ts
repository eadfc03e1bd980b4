import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BoundedBuffer, HeadTailBuffer } from './output-buffer.js';
import { markedEnv, noteLeader } from './reaper.js';
import { type Redactor, type StreamRedactor } from './redact.js';

export interface CommandSpec {
  /** A string runs through the shell (bash, as GitHub's `run:` does); an argv list runs directly. */
  command: string | readonly string[];
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  stdin?: string;
  redactor: Redactor;
  signal?: AbortSignal;
  /** How much stdout to keep whole for parsing (code judge JSON, CLI answers). */
  stdoutLimit?: number;
}

export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** stdout and stderr interleaved as they arrived: head and tail, redacted. */
  output: string;
  /** stdout alone, up to `stdoutLimit`, redacted. */
  stdout: string;
  stdoutOverflowed: boolean;
  /** The last part of stderr, redacted: what a failing command says about itself. */
  stderrTail: string;
  /** Could not start at all (missing executable, bad cwd). */
  spawnError: string | null;
}

const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
/**
 * As GitHub runs a `run:` step (`bash --noprofile --norc -eo pipefail`): no profile or rc files
 * (bash would otherwise read ~/.bashrc when its stdin is a socket, as Node's pipes are), and a
 * failing stage of a pipeline (`npm test | tee log`) fails the command.
 */
const SHELL_FLAGS = SHELL === '/bin/bash' ? ['--noprofile', '--norc', '-eo', 'pipefail', '-c'] : ['-e', '-c'];
const KILL_GRACE_MS = 2000;
/** Stdout kept whole for parsing, and the cap on a CLI target's output file. */
export const STDOUT_LIMIT = 8 * 1024 * 1024;

/**
 * The one command runner for gates, code judges and CLI targets. A string runs through bash like
 * a workflow step; an argv list runs directly. The command gets its own
 * process group so a timeout (or cancellation) kills it with all its children — a test runner's
 * workers included — first with SIGTERM, then SIGKILL.
 */
export function runCommand(spec: CommandSpec): Promise<CommandResult> {
  const started = Date.now();
  const captured = new CapturedOutput(spec.redactor, spec.stdoutLimit ?? STDOUT_LIMIT);
  const [file, args] = commandLine(spec.command);

  return new Promise((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let spawnError: string | null = null;
    let settled = false;
    const child = spawn(file, args, {
      cwd: spec.cwd,
      // The marker finds whatever the command leaves behind, wherever it goes (exec/reaper.ts).
      env: markedEnv(spec.env),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    noteLeader(child.pid);
    const group = processGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      group.stop();
    }, spec.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      group.stop();
    };
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    captured.listen(child);
    child.stdin.on('error', () => {
      /* the command need not read its stdin */
    });
    if (spec.stdin !== undefined) child.stdin.end(spec.stdin);
    else child.stdin.end();

    const finish = (exitCode: number | null, signal: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left running in its group goes with it; a child that left the
      // group (setsid) and still holds the pipes is cut off, so it cannot keep this process alive.
      group.kill('SIGKILL');
      for (const stream of [child.stdout, child.stderr, child.stdin]) stream.destroy();
      child.unref();
      const durationMs = Date.now() - started;
      resolve({ exitCode, signal, timedOut, cancelled, durationMs, ...captured.end(), spawnError });
    };
    child.on('error', (err) => {
      spawnError = err.message;
      finish(null, null);
    });
    child.on('close', (code, signal) => finish(code, signal));
    // A command that exits while something it started still holds the pipes open would otherwise
    // keep us waiting until the timeout: give the output a moment, then end the group.
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        if (!settled) {
          group.kill('SIGKILL');
          setTimeout(() => finish(code, signal), 200).unref();
        }
      }, 500).unref();
    });
  });
}

/** The program and its arguments: a command string through the shell, an argv list as it is. */
function commandLine(command: CommandSpec['command']): [string, string[]] {
  return typeof command === 'string' ? [SHELL, [...SHELL_FLAGS, command]] : [command[0]!, command.slice(1)];
}

/** The command's process group (it was spawned detached, as its leader), ended as a whole. */
function processGroup(child: ChildProcess) {
  const kill = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  /** SIGTERM first, SIGKILL after a grace period for whatever did not stop. */
  const stop = () => {
    kill('SIGTERM');
    setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS).unref();
  };
  return { kill, stop };
}

/**
 * A command's output, bounded and redacted: stdout and stderr interleaved (head and tail), stdout
 * alone up to its limit, and the tail of stderr. Secrets are replaced as the bytes arrive, before
 * any buffer keeps or cuts them, and once more over the whole text at the end.
 */
class CapturedOutput {
  private readonly combined = new HeadTailBuffer();
  private readonly stdout: BoundedBuffer;
  private readonly stderr = new HeadTailBuffer(0, 4 * 1024);
  private readonly outClean: StreamRedactor;
  private readonly errClean: StreamRedactor;

  constructor(
    private readonly redactor: Redactor,
    stdoutLimit: number,
  ) {
    this.stdout = new BoundedBuffer(stdoutLimit);
    this.outClean = redactor.stream();
    this.errClean = redactor.stream();
  }

  listen(child: ChildProcessWithoutNullStreams): void {
    child.stdout.on('data', (c: Buffer) => this.onOut(this.outClean.push(c)));
    child.stderr.on('data', (c: Buffer) => this.onErr(this.errClean.push(c)));
  }

  /** Flushes what the redacting streams held back, and gives the result's output fields. */
  end(): Pick<CommandResult, 'output' | 'stdout' | 'stdoutOverflowed' | 'stderrTail'> {
    this.onOut(this.outClean.end());
    this.onErr(this.errClean.end());
    const r = this.redactor;
    return {
      output: r.redact(this.combined.toString()),
      stdout: r.redact(this.stdout.toString()),
      stdoutOverflowed: this.stdout.overflowed,
      stderrTail: r.redact(this.stderr.toString()),
    };
  }

  private onOut(c: Buffer): void {
    this.combined.push(c);
    this.stdout.push(c);
  }

  private onErr(c: Buffer): void {
    this.combined.push(c);
    this.stderr.push(c);
  }
}

/** One line about how a command ended, for misses and reports. */
export function describeExit(r: CommandResult, timeoutMs: number): string {
  const missing = missingProgram(r);
  if (missing)
    return `${r.spawnError ? 'could not start' : `exit code ${r.exitCode}`}: '${missing}' was not found on PATH (the command needs it installed on the runner)`;
  if (r.spawnError) return `could not start: ${r.spawnError}`;
  if (r.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)} s and was killed`;
  if (r.cancelled) return 'cancelled';
  if (r.signal) return `killed by ${r.signal}`;
  return `exit code ${r.exitCode}`;
}

/**
 * The program a command needed but the machine lacks (`bun`, `uv`, ...): from the spawn error of
 * an argv command, or the shell's 127 "command not found" of a command string. Null otherwise.
 */
function missingProgram(r: CommandResult): string | null {
  const spawned = r.spawnError ? /^spawn (\S+) ENOENT/.exec(r.spawnError) : null;
  if (spawned) return spawned[1]!;
  if (r.exitCode !== 127) return null;
  const said = /(?:^|\n)(?:\S*sh: )?(?:line \d+: |\d+: )?(\S+): (?:command )?not found/.exec(
    r.stderrTail || r.output,
  );
  return said ? said[1]! : null;
}
