import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { Workspace } from '../../../src/core/workspace.js';
import { tmpDir } from '../../helpers/judge.js';

/** The checks without a judge, as a promptfoo config writes them: `is-json`'s schema bounded at load. */
function load(yaml: string) {
  const root = tmpDir('re-pf-checks-');
  writeFileSync(path.join(root, 'promptfooconfig.yaml'), yaml);
  const r = loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root));
  const errors = r.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.line} ${d.rule}: ${d.message}`);
  return { r, errors };
}

/** `depth` definitions, each allOf two `$ref`s to the next: 2^depth checks of one value. */
const doubling = (depth: number) =>
  Array.from(
    { length: depth },
    (_, i) => `            d${i}: { allOf: [{ $ref: '#/$defs/d${i + 1}' }, { $ref: '#/$defs/d${i + 1}' }] }`,
  ).join('\n') + `\n            d${depth}: { type: string }`;

const suite = (defs: string) => `prompts: ['{{ q }}']
providers: [echo]
tests:
  - vars: { q: hi }
    assert:
      - type: is-json
        value:
          type: object
          properties: { city: { $ref: '#/$defs/d0' } }
          $defs:
${defs}
`;

test("is-json's schema whose `$ref`s multiply is refused where it is written; an ordinary one loads", () => {
  expect(load(suite(doubling(34))).errors).toEqual([
    '8 schema: the schema with each `$ref` expanded has more than 10000 parts (a `$ref` used many times, or definitions that each use the next more than once): checking a value against it would take too long',
  ]);
  const ok = load(suite(doubling(3)));
  expect(ok.errors).toEqual([]);
  expect(ok.r.suite!.cases[0]!.evaluators[0]).toMatchObject({ check: 'is-json' });
});
