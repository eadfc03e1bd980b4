import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpDir } from './judge.js';

const TARGETS =
  'targets:\n  - name: default\n    provider: mock\n    response: The refund arrives in 5 to 10 business days.\n';

/**
 * A suite folder whose mock target always answers the refund question: `cases` maps a case id to
 * its `rubrics:` / `evaluators:` block (YAML, indented 4); the id is in each case's question, so a
 * judge's requests can be told apart by case.
 */
export function refundSuite(cases: Record<string, string>, prefix = 're-refund-'): string {
  const root = tmpDir(prefix);
  writeFileSync(path.join(root, 'targets.yaml'), TARGETS);
  const body = Object.entries(cases)
    .map(
      ([id, block]) =>
        `  - id: ${id}\n    expected_outcome: States how long a refund takes\n    input: "[${id}] How long does a refund take?"\n${block}`,
    )
    .join('\n');
  writeFileSync(path.join(root, 'suite.yaml'), `evalcases:\n${body}\n`);
  return root;
}
