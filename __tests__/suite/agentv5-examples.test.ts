import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { Workspace } from '../../src/core/workspace.js';
import { CORPUS, describeCorpus } from '../helpers/paths.js';
import { loadNunjucks } from '../../src/suite/agentv5/nunjucks-render.js';

// Nunjucks is loaded on demand (the suite loaders do it through withNunjucks); this test calls the loader directly.
beforeAll(() => loadNunjucks());

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
  // A promptfoo feature not run.
  'unsupported-key',
  // A TypeScript transform (file-transforms): compiled JavaScript is run, TypeScript is not.
  'unsupported-file',
  'tests-directory',
  // A file the suite references that the example does not ship.
  'missing-file',
]);

/** Per refused provider, assertion type or layout: how many suites need it (the README lists these). */
const EXPECTED_REFUSALS = {
  'unsupported-provider copilot-cli': 11,
  'unsupported-provider replay': 2,
  'unsupported-provider claude-cli': 1,
  'unknown-provider gemini-llm': 3,
  'unknown-provider mock_agent': 1,
  'unknown-provider provider-owned-batch-cli': 1,
  'unsupported-assertion not-skill-used': 3,
  'unsupported-assertion skill-used': 2,
  'unknown-assertion min-words': 1,
  'tests-directory ./cases/': 1,
  'unsupported-file file://../scripts/transforms/xlsx-to-csv.ts': 1,
  // Its `turns` were silently ignored until every key was checked (issue 46): a different grade.
  'unsupported-key turns': 1,
  'missing-file ../prompts/custom-grader.ts': 1,
};

describeCorpus('AgentV 5 example suites', () => {
  const ws = new Workspace(ROOT);
  const files = suiteFiles().sort();

  test('all 110 suite files are found', () => {
    expect(files).toHaveLength(110);
  });

  test('each validates, or is refused by name', () => {
    const outcome: Record<string, string> = {};
    const refusals: Record<string, number> = {};
    for (const f of files) {
      const r = loadSuiteFile(path.join(ROOT, f), ws);
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length === 0) {
        expect(r.suite!.cases.length).toBeGreaterThan(0);
        outcome[f] = 'valid';
        continue;
      }
      for (const e of errors) expect(e.line).toBeGreaterThan(0);
      expect(errors.filter((e) => !REFUSALS.has(e.rule)).map((e) => `${f}: ${e.rule} ${e.message}`)).toEqual(
        [],
      );
      outcome[f] = 'refused';
      // What the README lists: per refused name, how many suites need it.
      for (const name of new Set(errors.map((e) => `${e.rule} ${/'([^']+)'/.exec(e.message)?.[1]}`)))
        refusals[name] = (refusals[name] ?? 0) + 1;
    }
    expect(refusals).toEqual(EXPECTED_REFUSALS);
    const count = (k: string) => Object.values(outcome).filter((v) => v === k).length;
    expect({ valid: count('valid'), refused: count('refused') }).toEqual({ valid: 87, refused: 23 });
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
