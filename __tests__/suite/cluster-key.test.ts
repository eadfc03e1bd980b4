import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Workspace } from '../../src/core/workspace.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';

/** The `cluster` case key (docs/effect.md): v2's case key, promptfoo's `metadata.cluster`. */
function load(yaml: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cluster-key-'));
  const file = path.join(dir, 'suite.yaml');
  writeFileSync(file, yaml);
  return loadSuiteFile(file, new Workspace(dir));
}

test('an AgentV v2 case carries its cluster; a case without one has none', () => {
  const r = load(`evalcases:
  - id: a
    cluster: refunds
    expected_outcome: Refunds
    input: Question a
  - id: b
    expected_outcome: Other
    input: Question b
`);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(r.suite!.cases.map((c) => c.cluster)).toEqual(['refunds', undefined]);
});

test('a promptfoo test carries metadata.cluster (a number names one too)', () => {
  const r = load(`prompts:
  - "Answer: {{ q }}"
tests:
  - vars: { q: one }
    metadata: { cluster: refunds }
    assert: [{ type: contains, value: one }]
  - vars: { q: two }
    metadata: { cluster: 7 }
    assert: [{ type: contains, value: two }]
  - vars: { q: three }
    assert: [{ type: contains, value: three }]
`);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(r.suite!.cases.map((c) => c.cluster)).toEqual(['refunds', '7', undefined]);
});
