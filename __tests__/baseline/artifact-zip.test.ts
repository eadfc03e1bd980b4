import { strToU8, zipSync } from 'fflate';
import { resultsFromZip } from '../../src/baseline/artifact-zip.js';

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
