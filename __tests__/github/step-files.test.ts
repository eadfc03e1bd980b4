import { appendFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ownWrites, restoreStepFiles, stepFilesAtStart, writeStepFile } from '../../src/github/step-files.js';
import { tmpDir } from '../helpers/judge.js';

test("the step files end as the runner gave them plus the action's own writes", () => {
  const dir = tmpDir('re-step-');
  const env = {
    GITHUB_OUTPUT: path.join(dir, 'out'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
    GITHUB_ENV: path.join(dir, 'env'),
    GITHUB_PATH: path.join(dir, 'path'),
  };
  for (const f of Object.values(env)) writeFileSync(f, '');
  writeFileSync(env.GITHUB_PATH, '/given\n');
  const atStart = stepFilesAtStart(env);
  appendFileSync(env.GITHUB_OUTPUT, 'verdict=pass\n');
  appendFileSync(env.GITHUB_ENV, 'EVIL=1\n');
  writeStepFile(env.GITHUB_OUTPUT, 'verdict<<d\nfail\nd\n', 'append');
  ownWrites.output += 'verdict<<d\nfail\nd\n';
  writeStepFile(env.GITHUB_STEP_SUMMARY, '# fail\n', 'truncate');
  ownWrites.summary = '# fail\n';
  appendFileSync(env.GITHUB_STEP_SUMMARY, '# PASS\n');
  rmSync(env.GITHUB_PATH);
  symlinkSync(path.join(dir, 'elsewhere'), env.GITHUB_PATH);
  expect(restoreStepFiles(atStart)).toEqual([
    'GITHUB_OUTPUT',
    'GITHUB_STEP_SUMMARY',
    'GITHUB_ENV',
    'GITHUB_PATH',
  ]);
  expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe('verdict<<d\nfail\nd\n');
  expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toBe('# fail\n');
  expect(readFileSync(env.GITHUB_ENV, 'utf8')).toBe('');
  expect(readFileSync(env.GITHUB_PATH, 'utf8')).toBe('/given\n');
  expect(restoreStepFiles(atStart)).toEqual([]);
});
