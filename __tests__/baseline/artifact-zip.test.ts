import { deflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { resultsFromZip } from '../../src/baseline/artifact-zip.js';
import { deflatedZeros, zipDeclaring, zipWithRepeats } from '../helpers/zip-entries.js';

const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));

test('the one .json in the artifact is the results file, whatever its name', () => {
  expect(resultsFromZip(zip({ 'out/results.json': '{"version":1}', 'log.txt': 'x' }), 'r.json')).toEqual({
    name: 'out/results.json',
    text: '{"version":1}',
  });
});

test('among several .json files, the one named like results-file', () => {
  const z = zip({ 'a.json': '{}', 'rubric-eval-results.json': '{"version":1}' });
  expect(resultsFromZip(z, 'reports/rubric-eval-results.json')).toEqual({
    name: 'rubric-eval-results.json',
    text: '{"version":1}',
  });
  expect(resultsFromZip(z, 'other.json')).toEqual({
    error: 'the artifact holds 2 .json files and none is named other.json',
  });
});

test('no .json, a corrupt zip, a truncated entry: each a reason, never a throw', () => {
  expect(resultsFromZip(zip({ 'a.txt': 'x' }), 'r.json')).toEqual({
    error: 'the artifact holds no .json file (1 file)',
  });
  expect(resultsFromZip(strToU8('this is not a zip at all'), 'r.json')).toEqual({
    error: expect.stringMatching(/^the artifact is not a readable zip \(/),
  });
  const good = zip({ 'r.json': JSON.stringify({ pad: 'y'.repeat(5000) }) });
  // Damage the compressed data of the one entry (just past its 30-byte local header and name).
  const bad = good.slice();
  for (let i = 40; i < 60; i++) bad[i] = 0xff;
  expect(resultsFromZip(bad, 'r.json')).toEqual({
    error: expect.stringMatching(/^r\.json in the artifact is corrupt \(/),
  });
});

test('two entries of one name refuse the archive before anything is inflated', () => {
  const small = '{"version":1}';
  const z = zipWithRepeats([
    ['r.json', small],
    ['r.json', new Uint8Array(5_000_000)],
  ]);
  expect(resultsFromZip(z, 'r.json', 1000)).toEqual({
    error: 'the artifact holds two entries named r.json: refused',
  });
  // `./r.json` and `r.json` are one file to an unzipper.
  expect(resultsFromZip(zip({ 'r.json': small, './r.json': small }), 'r.json')).toEqual({
    error: 'the artifact holds two entries named r.json: refused',
  });
});

test("the declared sizes of every entry together are bounded, not only the results file's", () => {
  const z = zip({ 'r.json': '{"version":1}', 'padding.txt': 'x'.repeat(2000) });
  expect(resultsFromZip(z, 'r.json', 1000)).toEqual({
    error: "the artifact's 2 files declare 2013 bytes in all, over the 1000 limit",
  });
});

test('an entry that inflates past its declared size is refused at that size, not after inflating it all', () => {
  const bomb = zipDeclaring('rubric-eval-record.json', deflatedZeros(1 << 22), 8, 100);
  const before = process.cpuUsage();
  const r = resultsFromZip(bomb, 'r.json');
  const cpu = process.cpuUsage(before);
  expect(r).toEqual({
    error: 'rubric-eval-record.json in the artifact inflates past its declared 100 bytes: refused',
  });
  // Inflating it all took seconds; stopping at the declared size takes milliseconds (a generous bound: a shared machine).
  expect((cpu.user + cpu.system) / 1000).toBeLessThan(500);
});

test('an entry must be exactly its declared size, stored or deflated', () => {
  const text = '{"version":1}';
  expect(resultsFromZip(zipDeclaring('r.json', strToU8(text), 0, 5), 'r.json')).toEqual({
    error: 'r.json in the artifact stores 13 bytes but declares 5: refused',
  });
  const deflated = deflateRawSync(strToU8(text));
  expect(resultsFromZip(zipDeclaring('r.json', deflated, 8, 50), 'r.json')).toEqual({
    error: 'r.json in the artifact inflates to 13 bytes, not its declared 50: refused',
  });
  expect(resultsFromZip(zipDeclaring('r.json', deflated, 8, 13), 'r.json')).toEqual({ name: 'r.json', text });
  expect(resultsFromZip(zipDeclaring('r.json', strToU8(text), 0, 13), 'r.json')).toEqual({
    name: 'r.json',
    text,
  });
});
