import { statSync } from 'node:fs';
import { type DiagnosticSink } from './diagnostics.js';
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

function isFile(absPath: string): boolean {
  try {
    return statSync(absPath).isFile();
  } catch {
    return false;
  }
}
