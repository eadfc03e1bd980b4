import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { glob, isDynamicPattern } from 'tinyglobby';
import { present } from '../core/checkout-read.js';
import { type Diagnostic } from '../core/diagnostics.js';
import { loadSuiteFile } from './load-suite.js';
import { withNunjucks } from './agentv5/nunjucks-render.js';
import { type EvalSuite, type SuiteLoadOptions } from './types.js';
import { type Workspace } from '../core/workspace.js';

const SUITE_EXTENSIONS = /\.(ya?ml|jsonl)$/i;

/**
 * Expands suite globs relative to `cwd`. A pattern that matches nothing is an error: a typo in
 * a workflow must not silently evaluate zero suites and pass.
 */
export async function findSuiteFiles(
  patterns: readonly string[],
  cwd: string,
): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const files = new Set<string>();
  for (const pattern of patterns) {
    const matches = await glob(pattern, {
      cwd,
      absolute: true,
      dot: false,
      onlyFiles: true,
      ignore: ['**/node_modules/**', '**/.git/**'],
      expandDirectories: false,
      // A checkout may hold a link to `/`: following it walks the runner's whole disk. A suite
      // named literally is still found through a link (and must resolve inside the workspace).
      followSymbolicLinks: false,
    });
    if (!isDynamicPattern(pattern) && present(path.resolve(cwd, pattern)))
      matches.push(path.resolve(cwd, pattern));
    const suites = matches.filter((m) => SUITE_EXTENSIONS.test(m) && !/\.baseline\.jsonl$/i.test(m)).sort();
    if (suites.length === 0) {
      diagnostics.push({
        severity: 'error',
        file: pattern,
        line: 0,
        column: 0,
        rule: 'no-match',
        message: `no suite files (.yaml, .yml, .jsonl) match '${pattern}' in ${cwd}`,
      });
    }
    for (const m of suites) files.add(path.normalize(m));
  }
  return { files: [...files], diagnostics };
}

export interface LoadedSuites {
  suites: EvalSuite[];
  diagnostics: Diagnostic[];
}

/**
 * Loads every suite, collecting all problems of all files before anyone decides to stop. Between
 * files the event loop turns, so a SIGINT is handled while many suites load; after a cancel no
 * further file is read, and the load is an error that says how far it got (never a pass).
 */
export async function loadSuites(
  files: readonly string[],
  ws: Workspace,
  o: SuiteLoadOptions & { signal?: AbortSignal } = {},
): Promise<LoadedSuites> {
  const suites: EvalSuite[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [i, file] of files.entries()) {
    await nextTurn();
    if (o.signal?.aborted) {
      diagnostics.push({
        file: ws.display(file),
        line: 0,
        column: 0,
        severity: 'error',
        rule: 'cancelled',
        message: `the run was cancelled while loading suites: ${i} of ${files.length} loaded, this one and the rest not read`,
      });
      break;
    }
    const r = await withNunjucks(() => loadSuiteFile(file, ws, o));
    diagnostics.push(...r.diagnostics);
    if (r.suite) suites.push(r.suite);
  }
  return { suites, diagnostics };
}
