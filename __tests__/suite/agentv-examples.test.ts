import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { type EvaluatorConfig } from '../../src/suite/types.js';
import { Workspace } from '../../src/core/workspace.js';
import { tmpDir } from '../helpers/judge.js';
import { CORPUS, describeCorpus } from '../helpers/paths.js';

const ROOT = path.join(CORPUS, 'agentv-examples');
const ws = new Workspace(ROOT);
const load = (rel: string) => {
  const r = loadSuiteFile(path.join(ROOT, rel), ws);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return { suite: r.suite!, warnings: r.diagnostics.filter((d) => d.severity === 'warning') };
};
const names = (list: EvaluatorConfig[]) => list.map((e) => `${e.name}:${e.type}`);

/** Every eval suite of the nine example folders (files under an `evals/` folder, and the showcase's one). */
function suiteFiles(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const p = path.join(rel, d.name);
    if (d.isDirectory()) return d.name === '.agentv' || d.name === 'node_modules' ? [] : suiteFiles(dir, p);
    const isSuite = d.name.endsWith('.yaml') && (rel.endsWith('evals') || d.name === 'tool-eval-demo.yaml');
    return isSuite ? [p] : [];
  });
}

describeCorpus('AgentV v2.6.1 example suites load', () => {
  test('every example suite validates without errors', () => {
    const files = suiteFiles(ROOT);
    expect(files).toHaveLength(10);
    for (const f of files) load(f);
  });

  test("document-extraction: a case's own `evaluators:` replace the suite's (invoice-002, invoice-005, invoice-006)", () => {
    const { suite } = load('features/document-extraction/evals/dataset-field-accuracy.yaml');
    const byId = new Map(suite.cases.map((c) => [c.id, c]));
    expect(names(byId.get('invoice-001')!.evaluators)).toEqual(['invoice_field_accuracy:field_accuracy']);
    expect(names(byId.get('invoice-002')!.evaluators)).toEqual([
      'party_names_fuzzy:code_judge',
      'other_fields:field_accuracy',
    ]);
    expect(names(byId.get('invoice-005')!.evaluators)).toEqual(['line_items_check:field_accuracy']);
    expect(names(byId.get('invoice-006')!.evaluators)).toEqual(['line_items_matched:code_judge']);
    const fuzzy = byId.get('invoice-002')!.evaluators[0]!;
    // The code judge's extra keys are its config, as AgentV passes them.
    expect(fuzzy.type === 'code_judge' && fuzzy.config).toEqual({
      fields: [
        { path: 'supplier.name', threshold: 0.85 },
        { path: 'importer.name', threshold: 0.9 },
      ],
      algorithm: 'levenshtein',
    });
    const other = byId.get('invoice-002')!.evaluators[1]!;
    expect(
      other.type === 'field_accuracy' && other.fields.map((f) => [f.path, f.match, f.required, f.weight]),
    ).toEqual([
      ['invoice_number', 'exact', true, 1],
      ['invoice_date', 'date', true, 1],
      ['currency', 'exact', true, 1],
      ['net_total', 'numeric_tolerance', true, 1],
    ]);
  });

  test('tool_trajectory args: an object is compared, `any` is skipped', () => {
    const { suite } = load('features/tool-trajectory-simple/evals/dataset.yaml');
    const exact = suite.cases.find((c) => c.id === 'skip-args-validation')!.evaluators[0]!;
    expect(exact.type === 'tool_trajectory' && exact.expected).toEqual([
      { tool: 'load_data', args: { source: 'customers' }, maxDurationMs: null },
      { tool: 'transform', args: 'any', maxDurationMs: null },
      { tool: 'save_data', args: 'any', maxDurationMs: null },
    ]);
  });

  test('latency assertions, execution metrics and prompt scripts load with their keys', () => {
    const latency = load('features/latency-assertions/evals/dataset.yaml').suite;
    const mixed = latency.cases.find((c) => c.id === 'mixed-latency')!.evaluators[0]!;
    expect(mixed.type === 'tool_trajectory' && mixed.expected.map((e) => e.maxDurationMs)).toEqual([
      1000,
      null,
      500,
      200,
    ]);
    const metrics = load('features/execution-metrics/evals/dataset.yaml').suite;
    const ratio = metrics.cases.find((c) => c.id === 'exploration-ratio-check')!.evaluators[0]!;
    expect(ratio).toMatchObject({
      type: 'execution_metrics',
      targetExplorationRatio: 0.6,
      explorationTolerance: 0.2,
    });
    const cost = metrics.cases.find((c) => c.id === 'cost-budget-check')!.evaluators[0]!;
    expect(cost).toMatchObject({ type: 'execution_metrics', maxCostUsd: 0.05, weight: 2 });
    const sdk = load('features/prompt-template-sdk/evals/dataset.yaml').suite;
    const strict = sdk.cases[1]!.evaluators[0]!;
    expect(strict.type === 'llm_judge' && strict.promptScript).toEqual({
      command: ['bun', 'run', path.join(ROOT, 'features/prompt-template-sdk/prompts/custom-evaluator.ts')],
      cwd: path.join(ROOT, 'features/prompt-template-sdk/prompts'),
      config: expect.objectContaining({ strictMode: true }),
    });
    expect(sdk.cases[0]!.referenceAnswer).toContain('static type checking');
  });

  test('git-url-references: a GitHub URL is a remote file part, fetched before a run', () => {
    const { suite } = load('features/git-url-references/evals/dataset.yaml');
    const part = suite.cases[0]!.inputMessages[1]!.parts[1]!;
    expect(part.type === 'file' && part.file.remote).toEqual({
      url: 'https://github.com/EntityProcess/agentv/blob/main/README.md',
      owner: 'EntityProcess',
      repo: 'agentv',
      refAndPath: 'main/README.md',
    });
  });
});

test("AgentV's priority: the case's execution.evaluators, then its `evaluators:`, then the suite's", () => {
  const root = tmpDir('re-priority-');
  mkdirSync(path.join(root, 'evals'));
  const latency = (name: string) => `\n      - name: ${name}\n        type: latency\n        threshold: 100`;
  writeFileSync(
    path.join(root, 'evals/s.yaml'),
    `execution:\n  evaluators:${latency('suite')}\nevalcases:
  - id: both\n    input: q\n    execution:\n      evaluators:${latency('from-execution').replace(/\n/g, '\n  ')}\n    evaluators:${latency('own')}
  - id: target-only\n    input: q\n    execution:\n      target: other\n    evaluators:${latency('own')}
  - id: none\n    input: q\n    execution:\n      target: other\n`,
  );
  const r = loadSuiteFile(path.join(root, 'evals/s.yaml'), new Workspace(root));
  expect(r.diagnostics).toEqual([]);
  expect(r.suite!.cases.map((c) => c.evaluators.map((e) => e.name))).toEqual([
    ['from-execution'],
    ['own'],
    ['suite'],
  ]);
});
