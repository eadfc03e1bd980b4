import path from 'node:path';
import { type BaselineConfig } from '../config/config.js';
import { FileReadRefused, readRegularFile } from '../core/checkout-read.js';
import { type Workspace } from '../core/workspace.js';
import { type BaselineOrigin } from './compare.js';
import { type BaselineResults, MAX_RESULTS_BYTES, parseBaselineResults } from './read-results.js';

/**
 * What an adapter found for `baseline: auto` (the action: the base branch's artifact; the CLI:
 * the file given with --baseline). `warning`: something went wrong and the user should hear why;
 * `skipped`: there is nothing to compare with by design (not a pull request).
 */
export type FoundBaseline =
  { text: string; origin: BaselineOrigin } | { warning: string } | { skipped: string };
export type BaselineFinder = () => Promise<FoundBaseline>;

export type LoadedBaseline =
  { results: BaselineResults; origin: BaselineOrigin } | { missing: string; warn: boolean } | null;

/**
 * The baseline the config asks for, read and checked; null when it is off. Never throws: every
 * failure is a reason, and the run goes on without a baseline.
 */
export async function loadBaseline(
  config: BaselineConfig,
  ws: Workspace,
  finder: BaselineFinder | undefined,
): Promise<LoadedBaseline> {
  if (config.mode === 'off') return null;
  let found: FoundBaseline;
  if (config.mode === 'file') found = readBaselineFile(config.path, ws);
  else if (!finder) return { missing: 'nothing to compare with outside a pull request', warn: false };
  else {
    try {
      found = await finder();
    } catch (err) {
      found = { warning: `the baseline could not be found (${(err as Error).message})` };
    }
  }
  if ('skipped' in found) return { missing: found.skipped, warn: false };
  if ('warning' in found) return { missing: found.warning, warn: true };
  const source = found.origin.file ?? 'the baseline';
  const parsed = parseBaselineResults(found.text, source);
  if ('error' in parsed) return { missing: parsed.error, warn: true };
  const origin: BaselineOrigin = { ...found.origin, commit: found.origin.commit ?? parsed.results.commit };
  // `baseline: path` names a file in the checkout, the pull request's to write: the report says
  // whose it is. (The CLI's --baseline names a file on the user's own machine.)
  if (config.mode === 'file') origin.in_checkout = true;
  return { results: parsed.results, origin };
}

/** `baseline: <path>`: a results file inside the workspace, like every file a pull request can name. */
function readBaselineFile(file: string, ws: Workspace): FoundBaseline {
  return baselineText(file, () => ws.readText(path.resolve(ws.root, file), MAX_RESULTS_BYTES));
}

/** A results file the CLI's user names: read as given (their own machine), relative to `cwd`. */
export function readUserBaseline(file: string, cwd: string): FoundBaseline {
  return baselineText(file, () => readRegularFile(path.resolve(cwd, file), MAX_RESULTS_BYTES, file));
}

function baselineText(file: string, read: () => string): FoundBaseline {
  try {
    return { text: read(), origin: fileOrigin(file) };
  } catch (err) {
    const rule = err instanceof FileReadRefused ? err.rule : null;
    return {
      warning:
        rule === 'missing-file'
          ? `baseline file ${file} not found`
          : rule === 'escapes-workspace'
            ? `baseline file ${file} resolves outside the workspace`
            : `baseline file ${file} could not be read (${(err as Error).message})`,
    };
  }
}

export function fileOrigin(file: string): BaselineOrigin {
  return {
    source: 'file',
    commit: null,
    run_id: null,
    run_url: null,
    artifact_id: null,
    created_at: null,
    file,
  };
}
