import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { MAX_FILE_BYTES, Workspace } from '../../src/core/workspace.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';

/** One workspace with a file over the size limit, shared: writing it is the slow part. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'referenced-files-'));
writeFileSync(path.join(dir, 'big.md'), 'x'.repeat(MAX_FILE_BYTES + 1));
let suites = 0;

function load(yaml: string): string[] {
  const file = path.join(dir, `suite-${++suites}.yaml`);
  writeFileSync(file, yaml);
  return loadSuiteFile(file, new Workspace(dir)).diagnostics.map(formatDiagnostic);
}

const PROMPTFOO_TEST =
  'tests:\n  - id: t\n    vars: { q: hi }\n    assert: [{ type: contains, value: hi }]\n';

// Every reader of a file a suite refers to reports an oversized file the same way: as too large,
// not as missing, so the user is not sent looking for a file that is there.
describe('a referenced file over the size limit is too-large, whichever key refers to it', () => {
  test.each([
    [
      "a message's file part (v2)",
      'evalcases:\n  - id: c\n    expected_outcome: ok\n    input:\n      - role: user\n        content:\n          - type: file\n            value: big.md\n',
    ],
    ['a prompt file', `prompts: ["file://big.md"]\n${PROMPTFOO_TEST}`],
    [
      "an assertion's prompt file",
      'prompts: ["{{ q }}"]\ntests:\n  - id: t\n    vars: { q: hi }\n    assert: [{ type: llm-rubric, value: polite, prompt: "file://big.md" }]\n',
    ],
    ['a tests file', 'prompts: ["{{ q }}"]\ntests: file://big.md\n'],
    ['a default_test file', `prompts: ["{{ q }}"]\ndefault_test: file://big.md\n${PROMPTFOO_TEST}`],
  ])('%s', (_, yaml) => {
    const diagnostics = load(yaml);
    expect(diagnostics).toEqual([
      expect.stringMatching(/too-large: '(file:\/\/)?big\.md': file is 10\.0 MB; the limit is 10 MB$/),
    ]);
  });
});

test("a default_test file's YAML syntax errors are reported in that file, with their positions", () => {
  writeFileSync(path.join(dir, 'defaults.yaml'), 'vars: { q: hi }\nassert: [unclosed\n');
  const diagnostics = load(`prompts: ["{{ q }}"]\ndefault_test: file://defaults.yaml\n${PROMPTFOO_TEST}`);
  expect(diagnostics.length).toBeGreaterThan(0);
  expect(diagnostics.every((d) => /^defaults\.yaml:\d+:\d+ /.test(d))).toBe(true);
});
