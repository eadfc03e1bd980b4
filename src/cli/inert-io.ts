import { type CliIO } from './io.js';

/**
 * A workflow runner obeys `::command` at the start of a line of a step's output, and the older
 * `##[command]` anywhere in one. The CLI prints text from input (suite paths, case and check ids,
 * reasons, a shard file's warnings), and `rubric-eval` runs inside workflows: every line it writes
 * is given an invisible joiner where a runner would read a command. JSON the CLI prints escapes
 * `##[` itself first (`escapeRunnerCommands`), so its values stay as they are.
 */
export function inertOutput(text: string): string {
  const out = text.includes('##[') ? text.replaceAll('##[', '#\u200d#[') : text;
  // The runner trims what .NET calls white space before it looks for `::`: U+0085 too, which
  // JavaScript's \s does not match.
  return out.includes('::') ? out.replace(/^([\s\u0085]*):(?=:)/gm, '$1:\u200d') : out;
}

type Writer = CliIO['stdout'] & { once?: (event: string, listener: () => void) => unknown };

/** The CLI's streams with every write made inert (the rest of a stream, `once` and `isTTY`, kept). */
export function inertIO(io: CliIO): CliIO {
  const wrap = (raw: Writer): Writer => ({
    write: (s: string) => raw.write(inertOutput(s)),
    isTTY: raw.isTTY,
    ...(raw.once ? { once: (event: string, listener: () => void) => raw.once!(event, listener) } : {}),
  });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr) };
}
