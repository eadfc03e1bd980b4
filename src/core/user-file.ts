import { statSync } from 'node:fs';
import { type DiagnosticSink, excerpt } from './diagnostics.js';
import { FileTooLargeError, type Workspace } from './workspace.js';

/**
 * Reads a file a user named (a suite, the rubric, the answers file, the targets file) the one
 * way every input is read: nothing outside the workspace, by `..` or a symlink, is opened (the
 * path comes from a pull request); a missing path or a folder is `missing-file`; a file over the
 * size limit is `too-large`. Problems go to `sink` at line 0 with `what` naming the input, and
 * the text is undefined.
 */
export function readUserFile(
  absPath: string,
  ws: Workspace,
  what: string,
  sink: DiagnosticSink,
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
    return ws.readText(absPath);
  } catch (err) {
    if (err instanceof FileTooLargeError) sink.error(top, 'too-large', err.message);
    else sink.error(top, 'missing-file', `cannot read ${what}: ${(err as Error).message}`);
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
    const rule = err instanceof FileTooLargeError ? 'too-large' : 'missing-file';
    report(rule, `'${excerpt(shown)}': ${(err as Error).message}`);
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
