import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { Workspace } from '../../src/suite/workspace.js';
import { CORPUS, describeCorpus } from '../helpers/paths.js';

const ROOT = path.join(CORPUS, 'agentv5-examples');

/** Suite files as the corpus README counts them: YAML with a top-level `tests:`, outside `.agentv/`. */
function suiteFiles(rel = ''): string[] {
  return readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((d) => {
    const p = path.join(rel, d.name);
    if (d.isDirectory()) return d.name === '.agentv' || d.name === 'node_modules' ? [] : suiteFiles(p);
    if (!/\.ya?ml$/.test(d.name)) return [];
    return /^tests:/m.test(readFileSync(path.join(ROOT, p), 'utf8')) ? [p] : [];
  });
}

/** A refusal names the one provider or assertion type (or layout) rubric-eval does not run. */
const REFUSALS = new Set([
  'unsupported-provider',
  'unknown-provider',
  'unsupported-assertion',
  'unknown-assertion',
  'tests-directory',
  'tests-file-entry',
]);

/** Suites that fail for a reason that is ours to fix, not a refusal (listed in the README). */
const KNOWN_GAPS = new Set([
  // Assertion shapes not read yet: llm-rubric / trajectory values in forms the mapper does not take.
  'examples/features/file-changes-graders/evals/suite.yaml',
  'examples/features/readme-quickstart/evals/my-eval.eval.yaml',
  'examples/features/rubric/evals/operators.eval.yaml',
  'examples/features/rubric/evals/suite.yaml',
  'examples/features/trajectory-assertions-simple/evals/suite.yaml',
  // `prompt:` at the top level with vars only from default_test.
  'examples/features/test-vars-templating/evals/suite.yaml',
]);

describeCorpus('AgentV 5 example suites', () => {
  const ws = new Workspace(ROOT);
  const files = suiteFiles().sort();

  test('all 110 suite files are found', () => {
    expect(files).toHaveLength(110);
  });

  test('each validates, or is refused by name', () => {
    const outcome: Record<string, string> = {};
    for (const f of files) {
      const r = loadSuiteFile(path.join(ROOT, f), ws);
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length === 0) {
        expect(r.suite!.cases.length).toBeGreaterThan(0);
        outcome[f] = 'valid';
        continue;
      }
      for (const e of errors) expect(e.line).toBeGreaterThan(0);
      outcome[f] = errors.every((e) => REFUSALS.has(e.rule)) ? 'refused' : 'gap';
    }
    const gaps = Object.keys(outcome).filter((f) => outcome[f] === 'gap');
    expect(new Set(gaps)).toEqual(KNOWN_GAPS);
    const count = (k: string) => Object.values(outcome).filter((v) => v === k).length;
    expect({ valid: count('valid'), refused: count('refused'), gap: count('gap') }).toEqual({
      valid: 77,
      refused: 27,
      gap: 6,
    });
  });

  test('a suite on the `llm` label maps onto the catalog provider and AgentV 5 scoring', () => {
    const f = files.find((x) => x.includes('red-team')) ?? files[0]!;
    const r = loadSuiteFile(path.join(ROOT, f), ws);
    if (r.suite) {
      expect(r.suite.target).toBe('llm');
      expect(r.suite.cases.every((c) => c.scoring?.kind === 'threshold')).toBe(true);
    }
  });
});
