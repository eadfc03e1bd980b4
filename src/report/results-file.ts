import { writeFileNoFollow } from '../core/safe-write.js';
import { type RunResults } from '../core/results.js';

/**
 * The results JSON (README "Results file") in pieces, case by case, so a run of 10,000 cases never builds
 * the whole document as one string: top-level fields one per line, each case compact on its own line.
 */
function* resultsChunks(results: RunResults): Generator<string> {
  const { suites, ...rest } = results;
  const fields = Object.entries(rest);
  yield '{\n';
  for (const [key, value] of fields.slice(0, 4))
    yield `  ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`;
  yield '  "suites": [';
  for (const [si, suite] of suites.entries()) {
    const { cases, ...head } = suite;
    yield `${si ? ',' : ''}\n    ${JSON.stringify(head).slice(0, -1)}, "cases": [`;
    for (const [ci, c] of cases.entries()) yield `${ci ? ',' : ''}\n      ${JSON.stringify(c)}`;
    yield `${cases.length ? '\n    ' : ''}]}`;
  }
  yield `${suites.length ? '\n  ' : ''}]`;
  for (const [key, value] of fields.slice(4)) yield `,\n  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  yield '\n}\n';
}

/** The size of each write: one system call per case is most of the cost of writing 10,000 cases. */
const WRITE_BATCH = 64 * 1024;

/** The results JSON in writes of about `WRITE_BATCH` characters (chunks are never split). */
/**
 * JSON text with `##[` (a workflow runner obeys `##[command]` anywhere in a line) written as
 * `#\u0023[`: the same value once parsed. In JSON `##[` only ever stands inside a string.
 */
export function escapeRunnerCommands(json: string): string {
  return json.includes('##[') ? json.replaceAll('##[', '#\\u0023[') : json;
}

function* resultsBatches(results: RunResults): Generator<string> {
  let batch = '';
  for (const chunk of resultsChunks(results)) {
    // `##[` only ever stands inside a JSON string: escaped, the same value, and no line a
    // workflow runner would obey when the JSON is printed in a step (README "Guarantees").
    batch += escapeRunnerCommands(chunk);
    if (batch.length >= WRITE_BATCH) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

/**
 * The results JSON as it was written to the file, kept for a caller that prints it too:
 * serialising 10,000 cases twice is most of what a run does after its last judge call. Past
 * `limit` characters it is dropped (the JSON is then serialised again), so a run of very long
 * answers never holds its whole results twice.
 */
export class WrittenText {
  private kept: string[] | null = [];
  private size = 0;

  constructor(private readonly limit = 32 * 2 ** 20) {}

  add(batch: string): void {
    if (!this.kept) return;
    this.size += batch.length;
    if (this.size > this.limit) this.kept = null;
    else this.kept.push(batch);
  }

  /** The text in batches, or null when it was over the limit. */
  get batches(): readonly string[] | null {
    return this.kept;
  }
}

/** Writes the results file atomically: a reader never sees half a file. */
export function writeResultsFile(file: string, results: RunResults, copy?: WrittenText): void {
  // Never through a link the checkout planted (src/core/safe-write.ts).
  writeFileNoFollow(file, resultsBatches(results), copy && ((batch) => copy.add(batch)));
}

/**
 * Writes the results JSON to a stream (stdout), waiting whenever the reader is behind; `written`
 * is the JSON as the results file got it, when it was kept.
 */
export async function writeResultsStream(
  stream: NodeJS.WritableStream,
  results: RunResults,
  written?: WrittenText,
): Promise<void> {
  for (const batch of written?.batches ?? resultsBatches(results)) {
    if (!stream.write(batch)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
}

/** The results of a run that could not start: failed, nothing judged, and why. */
export function invalidInputResults(errors: string[], now = new Date()): RunResults {
  return {
    version: 1,
    verdict: 'fail',
    score: 0,
    counts: { pass: 0, borderline: 0, fail: 0, error: 0 },
    suites: [],
    rubric: null,
    usage: { judge_calls: 0, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
    partial: false,
    errors,
    warnings: [],
    history: [],
    judge: null,
    started_at: now.toISOString(),
    duration_ms: 0,
  };
}

/**
 * Writes the results file, whatever is in the results: when they cannot be written as they are
 * (a value too deep to serialise, a disk error), a failing results file that says why is written
 * in their place. Returns why the full results were not written, or null.
 */
export function writeResultsOrFallback(file: string, results: RunResults, copy?: WrittenText): string | null {
  try {
    writeResultsFile(file, results, copy);
    return null;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    try {
      writeResultsFile(file, {
        ...invalidInputResults([`internal: the results could not be written (${why})`]),
        started_at: results.started_at,
        duration_ms: results.duration_ms,
      });
    } catch {
      /* the caller reports it */
    }
    return why;
  }
}
