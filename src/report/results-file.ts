import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type RunResults } from '../results.js';

/** Writes the results JSON (CONTRACTS §5) atomically: a reader never sees half a file. */
export function writeResultsFile(file: string, results: RunResults): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(results, null, 2) + '\n');
  renameSync(tmp, file);
}
