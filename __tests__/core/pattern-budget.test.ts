import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { compileBoundedPattern, PatternRefusedError } from '../../src/core/bounded-pattern.js';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { Workspace } from '../../src/core/workspace.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { tmpDir } from '../helpers/judge.js';

/**
 * The run's total pattern work (docs/cancel-during-load.md). The tests
 * share this file's module instance, so they run in order: the budget is spent as they go.
 */

/** About 19,000 automaton states: just under the per-pattern limit, distinct by its prefix. */
const heavy = (i: number) => `p${i}${'[a-z]{1000}'.repeat(19)}`;
const OVERSIZED = '[a-z]{1000}'.repeat(21);

let compiledBeforeLimit = 0;

test('a refused pattern repeated is compiled and counted once', () => {
  for (let i = 0; i < 50; i++)
    expect(() => compileBoundedPattern(OVERSIZED)).toThrow(
      /compiles to 21\d{3} automaton states; the limit is 20000/,
    );
  // Counted 50 times, its 1 M states would leave nothing; counted once, ~20 heavy patterns fit.
  for (let i = 0; i < 100; i++) {
    try {
      compileBoundedPattern(heavy(i));
      compiledBeforeLimit++;
    } catch (err) {
      expect(err).toBeInstanceOf(PatternRefusedError);
      expect((err as Error).message).toMatch(
        /is not compiled: the patterns compiled so far total \d+ automaton states, which reaches the run's limit of 400000/,
      );
      break;
    }
  }
  expect(compiledBeforeLimit).toBeGreaterThanOrEqual(18);
  expect(compiledBeforeLimit).toBeLessThanOrEqual(21);
});

test('past the total, every new pattern is refused, small ones too; those compiled before still run', () => {
  expect(() => compileBoundedPattern('^ok$')).toThrow(/reaches the run's limit of 400000/);
  expect(() => compileBoundedPattern(heavy(500), 'i')).toThrow(/reaches the run's limit/);
  const early = compileBoundedPattern(heavy(0));
  expect(early.test(`p0${'q'.repeat(5000)}`)).toBe(false);
  expect(compileBoundedPattern(heavy(1)).test(`p1${'q'.repeat(5000)}`)).toBe(false);
});

test("in a suite, a pattern past the total is an error at its line, rule `regex`, naming the run's limit", () => {
  const root = tmpDir('re-pattern-budget-');
  const suite = [
    'prompts: ["{{ q }}"]',
    'tests:',
    '  - id: one',
    '    vars: { q: hi }',
    '    assert:',
    '      - { type: regex, value: "^fine$" }',
    '      - type: is-json',
    '        value: { type: object, properties: { id: { type: string, pattern: "^x+$" } } }',
    '',
  ].join('\n');
  writeFileSync(path.join(root, 'suite.yaml'), suite);
  const r = loadSuiteFile(path.join(root, 'suite.yaml'), new Workspace(root));
  expect(r.suite).toBeUndefined();
  const shown = r.diagnostics.map(formatDiagnostic);
  expect(shown).toHaveLength(2);
  expect(shown[0]).toMatch(
    /^suite\.yaml:6:\d+ test 'one': regex: \/\^fine\$\/ is not compiled: .*run's limit of 400000/,
  );
  expect(shown[1]).toMatch(/^suite\.yaml:8:\d+ .*JSON Schema pattern \/\^x\+\$\/u is not compiled/);

  // Loaded for its inputs only (the judge stage's head cases): no pattern is compiled, and an
  // assertion script that is not there is not read.
  writeFileSync(
    path.join(root, 'suite.yaml'),
    `${suite}      - { type: javascript, value: "file://missing-check.js" }\n`,
  );
  const inputs = loadSuiteFile(path.join(root, 'suite.yaml'), new Workspace(root), { inputsOnly: true });
  expect(inputs.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(inputs.suite!.cases.map((c) => c.id)).toEqual(['one']);
  expect(inputs.suite!.cases[0]!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'hi' }]);
  // Loaded in full, the missing script is an error as before.
  const full = loadSuiteFile(path.join(root, 'suite.yaml'), new Workspace(root));
  expect(full.diagnostics.map(formatDiagnostic).join('\n')).toMatch(/missing-check\.js/);
});
