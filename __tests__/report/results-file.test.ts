import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import {
  invalidInputResults,
  writeResultsFile,
  writeResultsStream,
  WrittenText,
} from '../../src/report/results-file.js';
import { tmpDir } from '../helpers/judge.js';

/** A run of `n` cases spread over two suites: a few hundred KB of JSON, written in several batches. */
function bigRun(n: number): RunResults {
  const kase = (i: number): CaseResult => ({
    id: `case-${i}`,
    definition_hash: i.toString(16).padStart(16, '0'),
    line: 3 + i * 7,
    verdict: i % 3 ? 'pass' : 'fail',
    score: (i % 10) / 10,
    gating_violations: i % 3 ? [] : ['names-paris'],
    evaluators: [],
    target: 'default',
    answer: `answer ${i}: "quoted", line\nbreak, ünïcode ✓`,
    duration_ms: i,
  });
  const half = Math.floor(n / 2);
  return {
    ...invalidInputResults([], new Date('2026-11-23T00:00:00Z')),
    verdict: 'fail',
    errors: [],
    suites: [
      { path: 'evals/a.yaml', description: 'first', cases: Array.from({ length: half }, (_, i) => kase(i)) },
      {
        path: 'evals/b.yaml',
        description: null,
        cases: Array.from({ length: n - half }, (_, i) => kase(half + i)),
      },
    ],
  };
}

describe('the results JSON, written in batches', () => {
  test('the file and the stream hold the same document, every case in order', async () => {
    const results = bigRun(3000);
    const file = path.join(tmpDir('re-results-file-'), 'out/results.json');
    writeResultsFile(file, results);
    const text = readFileSync(file, 'utf8');
    expect(text.length).toBeGreaterThan(4 * 64 * 1024);
    expect(JSON.parse(text)).toEqual(results);

    // A slow reader: the writer waits for it rather than buffering the whole document.
    const stream = new PassThrough({ highWaterMark: 1024 });
    const read: Buffer[] = [];
    let waits = 0;
    stream.on('drain', () => waits++);
    const writing = writeResultsStream(stream, results);
    stream.on('data', (c: Buffer) => read.push(c));
    await writing;
    stream.end();
    expect(Buffer.concat(read).toString('utf8')).toBe(text);
    expect(waits).toBeGreaterThan(0);
  });

  test('the text written to the file is printed as it is, or serialised again past its limit', async () => {
    const results = bigRun(1000);
    const file = path.join(tmpDir('re-results-file-'), 'results.json');
    const printed = async (written: WrittenText) => {
      writeResultsFile(file, results, written);
      const stream = new PassThrough();
      const read: Buffer[] = [];
      stream.on('data', (c: Buffer) => read.push(c));
      await writeResultsStream(stream, results, written);
      stream.end();
      return Buffer.concat(read).toString('utf8');
    };
    const kept = new WrittenText();
    expect(await printed(kept)).toBe(readFileSync(file, 'utf8'));
    expect(kept.batches?.join('')).toBe(readFileSync(file, 'utf8'));
    const dropped = new WrittenText(64 * 1024);
    expect(await printed(dropped)).toBe(readFileSync(file, 'utf8'));
    expect(dropped.batches).toBeNull();
  });

  test('a run with no case is a whole document too', () => {
    const results = bigRun(0);
    const file = path.join(tmpDir('re-results-file-'), 'results.json');
    writeResultsFile(file, results);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(results);
  });
});
