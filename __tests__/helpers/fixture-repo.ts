import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpDir } from './judge.js';

/**
 * A small repository for end-to-end runs: one suite judged with a checklist and a score-range
 * rubric, answered by a mock target, and a markdown rubric with real gate commands.
 */
export function makeFixtureRepo(
  opts: { answers?: Record<string, string>; gates?: string[]; criteria?: string[] } = {},
): string {
  const root = tmpDir('re-repo-');
  const answers = {
    'capital-of-france': 'Paris is the capital of France.',
    'explain-quicksort':
      'Quicksort picks a pivot, partitions the array around it and recurses; O(n log n) on average.',
    ...opts.answers,
  };
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  mkdirSync(path.join(root, '.agentv'), { recursive: true });
  writeFileSync(
    path.join(root, '.agentv/targets.yaml'),
    `targets:\n  - name: default\n    provider: mock\n    responses:\n${Object.entries(answers)
      .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
  writeFileSync(
    path.join(root, 'evals/qa.yaml'),
    `description: Answers to simple questions
evalcases:
  - id: capital-of-france
    expected_outcome: Names Paris as the capital
    input: What is the capital of France?
    rubrics:
      - id: names-paris
        expected_outcome: Says Paris
        required: true
      - id: concise
        expected_outcome: One sentence
        required: false

  - id: explain-quicksort
    expected_outcome: Explains quicksort with its complexity
    input: Explain quicksort briefly.
    rubrics:
      - id: accuracy
        weight: 2
        required_min_score: 7
        score_ranges:
          0: Wrong
          5: Partly right
          8: Right
      - id: brevity
        score_ranges:
          - score_range: [0, 4]
            expected_outcome: Rambling
          - score_range: [5, 10]
            expected_outcome: Brief
`,
  );
  const gates = opts.gates ?? [
    'node -e "console.log(\'lint ok\')"',
    'node -e "console.log(\'12 tests passed\')"',
  ];
  const criteria = opts.criteria ?? [
    'Search results are relevant to query intent',
    'Errors show friendly messages',
  ];
  writeFileSync(
    path.join(root, 'RUBRIC.md'),
    `# Search Feature\n\n## Gates\n${gates.map((g) => `- \`${g}\``).join('\n')}\n\n## Criteria\n${criteria.map((c) => `- ${c}`).join('\n')}\n\n## Nice to Have\n- Code follows naming conventions\n\n## Notes\nFocus on the API layer.\n`,
  );
  return root;
}

export const PR_EVENT = {
  action: 'synchronize',
  number: 7,
  pull_request: {
    number: 7,
    title: 'Add search',
    body: 'Implements the search endpoint.',
    head: { sha: 'abc1234def' },
  },
};

export const PR_DIFF = `diff --git a/src/search.ts b/src/search.ts
--- a/src/search.ts
+++ b/src/search.ts
@@ -0,0 +1,3 @@
+export function search(q: string) {
+  return q.trim() ? [q] : [];
+}
`;
