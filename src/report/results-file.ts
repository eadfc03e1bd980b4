import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { type RunResults } from '../results.js';

/**
 * Writes the results JSON (CONTRACTS §5) to a file descriptor case by case, so a run of 10,000
 * cases never builds the whole document as one string. Top-level fields one per line, each case
 * compact on its own line.
 */
export function writeResultsTo(fd: number, results: RunResults): void {
  const { suites, ...rest } = results;
  const fields = Object.entries(rest);
  writeSync(fd, '{\n');
  for (const [key, value] of fields.slice(0, 4)) writeSync(fd, `  ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`);
  writeSync(fd, '  "suites": [');
  suites.forEach((suite, si) => {
    const { cases, ...head } = suite;
    const headText = JSON.stringify(head);
    writeSync(fd, `${si ? ',' : ''}\n    ${headText.slice(0, -1)}, "cases": [`);
    cases.forEach((c, ci) => writeSync(fd, `${ci ? ',' : ''}\n      ${JSON.stringify(c)}`));
    writeSync(fd, `${cases.length ? '\n    ' : ''}]}`);
  });
  writeSync(fd, `${suites.length ? '\n  ' : ''}]`);
  for (const [key, value] of fields.slice(4)) writeSync(fd, `,\n  ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  writeSync(fd, '\n}\n');
}

/** Writes the results file atomically: a reader never sees half a file. */
export function writeResultsFile(file: string, results: RunResults): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeResultsTo(fd, results);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
