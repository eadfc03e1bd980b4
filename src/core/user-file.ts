import { statSync } from 'node:fs';
import { FileReadRefused } from './checkout-read.js';
import { type DiagnosticSink, excerpt } from './diagnostics.js';
import { type Workspace } from './workspace.js';

/**
 * Reads a file a user named (a suite, the rubric, the answers file, the targets file) the one
 * way every input is read: nothing outside the workspace, by `..` or a symlink, is opened (the
 * path comes from a pull request); a missing path or a folder is `missing-file`; a file over the
 * size limit is `too-large`. Problems go to `sink` at line 0 with `what` naming the input, and
 * the text is undefined. `keep: false` for a file parsed once (a suite, an answers file): its
 * text is not held for the rest of the run (a 10,000-case suite is megabytes).
 */
export function readUserFile(
  absPath: string,
  ws: Workspace,
  what: string,
  sink: DiagnosticSink,
  keep = true,
): string | undefined {
  const top = { line: 0, column: 0 };
  if (!ws.contains(absPath)) {
    sink.error(
      top,
      'escapes-workspace',
      `${what} resolves outside the workspace (${ws.root}), through '..' or a symlink: refused`,
    );
    return undefined;
  }
  if (!isFile(absPath)) {
    sink.error(top, 'missing-file', `${what} not found: ${ws.display(absPath)}`);
    return undefined;
  }
  try {
    return ws.readText(absPath, undefined, keep);
  } catch (err) {
    sink.error(top, ruleOf(err), `${what}: ${(err as Error).message}`);
    return undefined;
  }
}

/** How a reader reports a problem: the rule it breaks and a message for the user. */
export type ReportProblem = (rule: string, message: string) => void;

/**
 * Reads a file another file refers to (a prompt, a message's file, a tests file, a
 * `default_test`), resolved from `fromDir` the way references are (see
 * `Workspace.resolveReference`). Problems are reported with the rule a user file gets:
 * `escapes-workspace`, `missing-file`, or `too-large` for a file over the size limit. `shown` is
 * the reference as the user wrote it (a `file://` prefix included), quoted in the message.
 */
export function readReferencedFile(
  ws: Workspace,
  ref: string,
  fromDir: string,
  report: ReportProblem,
  shown = ref,
): { absPath: string; text: string } | undefined {
  const resolved = ws.resolveReference(ref, fromDir);
  if (!resolved.ok) {
    report(resolved.rule, resolved.message);
    return undefined;
  }
  try {
    return { absPath: resolved.absPath, text: ws.readText(resolved.absPath) };
  } catch (err) {
    report(ruleOf(err), `'${excerpt(shown)}': ${(err as Error).message}`);
    return undefined;
  }
}

function isFile(absPath: string): boolean {
  try {
    return statSync(absPath).isFile();
  } catch {
    return false;
  }
}

/** The rule a refused read is reported under (a folder or a FIFO is `missing-file`: not a file to read). */
function ruleOf(err: unknown): string {
  if (!(err instanceof FileReadRefused)) return 'missing-file';
  return err.rule === 'not-a-file' ? 'missing-file' : err.rule;
}
