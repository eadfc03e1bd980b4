import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type RunResults } from '../../src/core/results.js';
import { tmpDir } from './judge.js';

/**
 * A checkout as a hostile pull request leaves it: one suite whose cases are judged free-form
 * (no rubrics) unless `suite` says otherwise, a targets.yaml (a mock answering `answer`, or the
 * given cli command), and whatever other files the test adds.
 */
export function hostileRepo(
  opts: { suite?: string; answer?: string; cli?: string; files?: Record<string, string> } = {},
): string {
  const root = tmpDir('re-hostile-');
  const target = opts.cli
    ? `    provider: cli\n    command_template: ${JSON.stringify(opts.cli)}\n`
    : `    provider: mock\n    response: ${JSON.stringify(opts.answer ?? 'The answer is 4.')}\n`;
  writeFileSync(path.join(root, 'targets.yaml'), `targets:\n  - name: default\n${target}`);
  writeFileSync(
    path.join(root, 'suite.yaml'),
    opts.suite ?? 'evalcases:\n  - id: sum\n    input: What is 2 + 2?\n    expected_outcome: Says 4\n',
  );
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(path.join(root, name), text);
  return root;
}

export function readResults(root: string, file = 'rubric-eval-results.json'): RunResults {
  return JSON.parse(readFileSync(path.join(root, file), 'utf8')) as RunResults;
}

/** The `::warning::` lines of an action's log that contain `text`. */
export function warningsAbout(stdout: string, text: string): string[] {
  return stdout.split('\n').filter((l) => l.startsWith('::warning') && l.includes(text));
}
