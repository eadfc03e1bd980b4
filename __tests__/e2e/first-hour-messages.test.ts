import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startParisJudge } from '../helpers/paris-judge.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * The snags of a first suite (issue 42 item 5), each message with its exact text, through
 * dist/cli.js as a newcomer meets them.
 */
function folder(files: Record<string, string>): string {
  const root = tmpDir('re-first-hour-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const TARGETS = 'targets:\n  - name: default\n    provider: mock\n    response: hello\n';

test('`required: ture` says required must be true or false, with the value given', async () => {
  const root = folder({
    'targets.yaml': TARGETS,
    'evals/s.yaml':
      'evalcases:\n  - id: refund\n    input: How do I get a refund?\n    rubrics:\n      - id: cites\n        expected_outcome: Cites the policy\n        required: ture\n',
  });
  const r = await runCli(['validate', 'evals/s.yaml'], { cwd: root });
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe(
    "evals/s.yaml:5:9 case 'refund': type: required must be true or false (got 'ture')",
  );
});

test('`type: latncy` lists the types and says which one was meant', async () => {
  const root = folder({
    'targets.yaml': TARGETS,
    'evals/s.yaml':
      'evalcases:\n  - id: refund\n    input: How do I get a refund?\n    evaluators:\n      - name: fast\n        type: latncy\n        threshold: 1000\n',
  });
  const r = await runCli(['validate', 'evals/s.yaml'], { cwd: root });
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe(
    "evals/s.yaml:6:15 case 'refund': enum: evaluator type must be one of llm_judge, llm-judge, code_judge, code-judge, composite, field_accuracy, latency, cost, token_usage, tool_trajectory, execution_metrics (got 'latncy'); did you mean 'latency'?",
  );
});

test('a suite-level `target: defualt` is reported once for the suite, not once per case', async () => {
  const cases = ['a', 'b', 'c']
    .map((id) => `  - id: ${id}\n    input: ${id}\n    rubrics: [Says ${id}]\n`)
    .join('');
  const root = folder({
    'targets.yaml': TARGETS,
    'evals/s.yaml': `execution:\n  target: defualt\nevalcases:\n${cases}`,
  });
  const r = await runCli(['validate', 'evals/s.yaml'], { cwd: root });
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe(
    "evals/s.yaml:4:5 execution.target (3 cases): unknown-target: target 'defualt' is not defined in targets.yaml; did you mean 'default'? (defined: default)",
  );
});

test('a markdown rubric outside a git repository: what is missing and that --diff gives the subject, no raw git error', async () => {
  const judge = await startParisJudge();
  try {
    const root = folder({
      'RUBRIC.md': '# Refund flow\n\n## Criteria\n- The change keeps the refund policy documented\n',
    });
    const r = await runCli(['run', '--rubric', 'RUBRIC.md', '--judge-base-url', judge.url, '--no-cache'], {
      cwd: root,
      env: { GIT_CEILING_DIRECTORIES: path.dirname(root) },
    });
    const all = r.stdout + r.stderr;
    expect(all).not.toContain('fatal:');
    expect(all).toContain(
      `the markdown rubric judges a change, and ${root} is not in a git repository, so there is no commit to read: give the change as a unified diff with --diff <file> (for example \`git diff main > change.diff\` where the repository is), or run inside a git repository`,
    );
    expect(all).not.toMatch(/^\s*\?\s/m);
    expect(all).toContain(' --   must-1  The change keeps the refund policy documented (not judged)');
    expect(r.code).not.toBe(0);
  } finally {
    await judge.close();
  }
});
