import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { E2E_NODE } from './helpers/action.js';
import { REPO_ROOT } from './helpers/paths.js';

test("the README's example comment is what the offline demo prints today (scripts/readme-comment.mjs --check)", () => {
  const check = spawnSync(E2E_NODE, ['scripts/readme-comment.mjs', '--check'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect({ code: check.status, stderr: check.stderr }).toEqual({ code: 0, stderr: '' });
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const example = readme.split('<!-- demo-comment:start -->')[1]!.split('<!-- demo-comment:end -->')[0]!;
  // The demo fails one case and leaves one borderline on purpose.
  expect(example).toContain('## ❌ rubric-eval: **fail**');
  expect(example).toContain('`password-reset`');
});
