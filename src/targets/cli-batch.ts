import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type z } from 'zod';
import { readCapped } from '../exec/output-buffer.js';
import { describeExit, runCommand, STDOUT_LIMIT } from '../exec/run-command.js';
import { filesOf } from '../suite/messages.js';
import { type EvalCase } from '../suite/types.js';
import { type CliAnswer, parseBatchOutput } from './cli-output.js';
import {
  type CliSettings,
  cliRunner,
  renderCommandTemplate,
  type RunnerDeps,
  TargetError,
  type TargetRunner,
} from './providers.js';

/** Most bytes of a batch's {OUTPUT_FILE} read: 64 MB, whatever the number of cases. */
const BATCH_OUTPUT_LIMIT = 8 * STDOUT_LIMIT;

interface Batch {
  records: Map<string, CliAnswer>;
  /** The run's measured time shared out: the duration of a record that reports none. */
  perCaseMs: number;
}

/**
 * AgentV's CLI batch mode (`provider_batching: true`): the command runs once for every case
 * planned on the target, writes one JSONL record per case id to {OUTPUT_FILE}, and each case
 * takes its record. A case without a record is an error for that case alone; a run that fails
 * (or writes a line that is not a record) is an error for all of them.
 */
export function batchCliRunner(
  name: string,
  s: z.infer<typeof CliSettings>,
  targetsDir: string,
  deps: RunnerDeps,
): TargetRunner {
  const single = cliRunner(name, s, targetsDir, deps);
  const cases: EvalCase[] = [];
  let batch: Promise<Batch> | null = null;
  return {
    name,
    provider: 'cli',
    healthcheck: single.healthcheck,
    enlist: (c) => {
      if (!cases.includes(c)) cases.push(c);
    },
    answer: async (c) => {
      batch ??= runBatch(name, s, targetsDir, deps, cases.length > 0 ? cases : [c]);
      const { records, perCaseMs } = await batch;
      const record = records.get(c.id);
      if (!record) throw new TargetError(`Batch output missing id '${c.id}' (target '${name}')`);
      return { ...record, durationMs: record.durationMs ?? perCaseMs };
    },
  };
}

async function runBatch(
  name: string,
  s: z.infer<typeof CliSettings>,
  targetsDir: string,
  deps: RunnerDeps,
  cases: readonly EvalCase[],
): Promise<Batch> {
  const cwd = path.resolve(targetsDir, s.cwd ?? '.');
  const timeoutMs = s.timeout_seconds !== undefined ? s.timeout_seconds * 1000 : deps.commandTimeoutMs;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'rubric-eval-batch-'));
  const outputFile = path.join(scratch, 'output.jsonl');
  try {
    const files = [...new Set(cases.flatMap((c) => filesOf(c.inputMessages).map((f) => f.absPath)))];
    const command = renderCommandTemplate(s.command_template, {
      prompt: '',
      files,
      filesFormat: s.files_format ?? '{path}',
      evalId: 'batch',
      attempt: 0,
      outputFile,
    });
    const r = await deps.limiter.run(
      () =>
        runCommand({
          command,
          cwd,
          timeoutMs,
          env: deps.childEnv,
          redactor: deps.redactor,
          signal: deps.signal,
        }),
      deps.signal,
    );
    const said = r.output.trim() ? `:\n${r.output.trim().slice(-1500)}` : '';
    if (r.exitCode !== 0)
      throw new TargetError(`batch run of target '${name}' ${describeExit(r, timeoutMs)}${said}`);
    // Capped like a single run's output, per case, up to a whole-batch ceiling.
    const limit = Math.min(STDOUT_LIMIT * cases.length, BATCH_OUTPUT_LIMIT);
    let read: ReturnType<typeof readCapped>;
    try {
      read = readCapped(outputFile, limit, deps.redactor.stream());
    } catch (err) {
      throw new TargetError(
        `batch run of target '${name}' exited 0 but wrote no readable {OUTPUT_FILE} (${(err as Error).message})${said}`,
        { cause: err },
      );
    }
    if (read.overflowed)
      throw new TargetError(
        `batch run of target '${name}' wrote ${read.size} bytes to {OUTPUT_FILE}, more than the ${limit} read`,
      );
    const raw = read.text;
    try {
      return { records: parseBatchOutput(raw), perCaseMs: Math.round(r.durationMs / cases.length) };
    } catch (err) {
      throw new TargetError(`batch run of target '${name}': ${(err as Error).message}`, { cause: err });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
