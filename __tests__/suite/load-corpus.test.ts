import path from 'node:path';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { Workspace } from '../../src/core/workspace.js';
import { agentvCorpusCopy, OMITTED_CORPUS_SCRIPTS } from '../helpers/corpus-copy.js';
import { CORPUS, describeCorpus, HAS_CORPUS } from '../helpers/paths.js';
import { type EvaluatorConfig } from '../../src/suite/types.js';

// The corpus with the project's stand-ins for the judge scripts it leaves out.
const ROOT = HAS_CORPUS ? agentvCorpusCopy() : CORPUS;
const ws = new Workspace(ROOT);
const load = (rel: string) => {
  const r = loadSuiteFile(path.join(ROOT, rel), ws);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errors).toEqual([]);
  expect(r.suite).toBeDefined();
  return r.suite!;
};

function tree(e: EvaluatorConfig): unknown {
  if (e.type === 'composite') return { [e.name]: e.children.map(tree), aggregator: e.aggregator.type };
  if (e.type === 'llm_judge')
    return `${e.name}:llm_judge:${e.rubrics?.mode ?? (e.prompt ? 'prompt' : 'freeform')}`;
  return `${e.name}:code_judge`;
}

describeCorpus('corpus agentv suites load unchanged', () => {
  test('basic/evals/dataset.yaml', () => {
    const s = load('basic/evals/dataset.yaml');
    expect(s.target).toBe('default');
    expect(s.cases.map((c) => c.id)).toEqual([
      'code-review-javascript',
      'code-gen-python-comprehensive',
      'feature-proposal-brainstorm',
      'coding-multiturn-debug-session',
      'shorthand-string-example',
      'shorthand-structured-output',
      'shorthand-array-syntax',
    ]);
    const [js, py, , multi, shortStr, structured] = s.cases;
    // array content with a file part resolved beside the suite and marked as a guideline
    const userParts = js!.inputMessages[1]!.parts;
    expect(userParts[0]).toMatchObject({ type: 'text' });
    expect(userParts[1]).toMatchObject({
      type: 'file',
      file: { path: 'basic/evals/javascript.instructions.md', guideline: true },
    });
    expect(js!.evaluators.map(tree)).toEqual(['llm_judge:llm_judge:freeform']);
    expect(py!.target).toBe('azure_base');
    expect(py!.conversationId).toBe('python-code-generation');
    expect(py!.evaluators.map(tree)).toEqual([
      'keyword_check:code_judge',
      'code_correctness:llm_judge:prompt',
    ]);
    const kc = py!.evaluators[0]!;
    expect(kc.type === 'code_judge' && kc.command).toEqual(['uv', 'run', 'check_python_keywords.py']);
    expect(kc.type === 'code_judge' && kc.cwd).toBe(path.join(ROOT, 'basic/evals'));
    const cc = py!.evaluators[1]!;
    expect(cc.type === 'llm_judge' && cc.prompt?.template).toContain('{{candidate_answer}}');
    // expected_output with two file parts (./snippets/...)
    expect(py!.expectedMessages[0]!.parts.map((p) => (p.type === 'file' ? p.file.path : 'text'))).toEqual([
      'basic/evals/snippets/python-second-largest.md',
      'basic/evals/snippets/python-second-largest-comments.md',
    ]);
    expect(multi!.inputMessages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(shortStr!.inputMessages).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'What is 2+2?' }] },
    ]);
    expect(shortStr!.expectedMessages[0]!.role).toBe('assistant');
    const structuredText = structured!.expectedMessages[0]!.parts[0];
    expect(structuredText?.type === 'text' && JSON.parse(structuredText.text)).toEqual({
      riskLevel: 'Low',
      confidence: 0.95,
      reasoning: 'Transaction amount and pattern are within normal bounds',
    });
  });

  test('rubric/evals/dataset.yaml', () => {
    const s = load('rubric/evals/dataset.yaml');
    expect(s.cases.map((c) => c.id)).toEqual([
      'code-explanation-simple',
      'technical-writing-detailed',
      'code-quality-multi-eval',
      'summary-task',
      'summary-multi-criteria-score-ranges-proposed',
    ]);
    const [simple, detailed, multi, summary, ranges] = s.cases;
    const r0 = simple!.evaluators[0]!;
    expect(r0.type === 'llm_judge' && r0.rubrics).toEqual({
      mode: 'checklist',
      items: [
        { id: 'rubric-1', outcome: 'Mentions divide-and-conquer approach', weight: 1, required: true },
        { id: 'rubric-2', outcome: 'Explains the partition step', weight: 1, required: true },
        { id: 'rubric-3', outcome: 'States time complexity correctly', weight: 1, required: true },
      ],
    });
    const r1 = detailed!.evaluators[0]!;
    expect(
      r1.type === 'llm_judge' &&
        r1.rubrics?.items.map((i) => [i.id, i.weight, 'required' in i && i.required]),
    ).toEqual([
      ['structure', 1, true],
      ['success-codes', 2, true],
      ['client-errors', 2, true],
      ['server-errors', 1.5, false],
      ['practical-examples', 1, false],
    ]);
    expect(multi!.evaluators.map(tree)).toEqual(['rubric:llm_judge:checklist', 'python_syntax:code_judge']);
    expect(summary!.evaluators.map(tree)).toEqual(['llm_judge:llm_judge:freeform']);
    const r4 = ranges!.evaluators[0]!;
    expect(r4.type === 'llm_judge' && r4.rubrics?.mode).toBe('score_range');
    const items = r4.type === 'llm_judge' && r4.rubrics?.mode === 'score_range' ? r4.rubrics.items : [];
    expect(items.map((i) => [i.id, i.weight, i.requiredMinScore])).toEqual([
      ['factual_accuracy', 2, 8],
      ['brevity_and_clarity', 1, null],
    ]);
    expect(items[0]!.bands.map((b) => [b.min, b.max])).toEqual([
      [0, 2],
      [3, 5],
      [6, 7],
      [8, 9],
      [10, 10],
    ]);
  });

  test('composite/evals/dataset.yaml', () => {
    const s = load('composite/evals/dataset.yaml');
    expect(s.dataset).toBe('composite-evaluator-examples');
    expect(s.cases.map((c) => c.evaluators.map(tree))).toEqual([
      [
        {
          release_gate: ['safety:llm_judge:prompt', 'quality:llm_judge:prompt'],
          aggregator: 'weighted_average',
        },
      ],
      [{ safety_gate: ['safety:llm_judge:prompt', 'quality:llm_judge:prompt'], aggregator: 'code_judge' }],
      [
        {
          final_decision: ['conciseness:llm_judge:prompt', 'detail:llm_judge:prompt'],
          aggregator: 'llm_judge',
        },
      ],
      [
        {
          comprehensive_evaluation: [
            {
              content_quality: ['accuracy:llm_judge:prompt', 'clarity:llm_judge:prompt'],
              aggregator: 'weighted_average',
            },
            'safety:llm_judge:prompt',
          ],
          aggregator: 'weighted_average',
        },
      ],
    ]);
    const nested = s.cases[3]!.evaluators[0]!;
    expect(nested.type === 'composite' && nested.aggregator).toEqual({
      type: 'weighted_average',
      weights: { content_quality: 0.7, safety: 0.3 },
    });
    const gate = s.cases[1]!.evaluators[0]!;
    expect(gate.type === 'composite' && gate.aggregator).toEqual({
      type: 'code_judge',
      command: 'node ../scripts/safety-gate-aggregator.js',
      cwd: path.join(ROOT, 'composite/evals'),
    });
    const conflict = s.cases[2]!.evaluators[0]!;
    expect(
      conflict.type === 'composite' &&
        conflict.aggregator.type === 'llm_judge' &&
        conflict.aggregator.prompt?.template,
    ).toContain('{{EVALUATOR_RESULTS_JSON}}');
  });

  test('local-cli and code-judge-sdk suites', () => {
    const cli = load('local-cli/evals/dataset.yaml');
    expect(cli.target).toBe('local_cli');
    expect(cli.cases[0]!.inputMessages[0]!.parts[0]).toMatchObject({
      type: 'file',
      file: { path: 'local-cli/evals/python.instructions.md' },
    });
    const sdk = load('code-judge-sdk/evals/dataset.yaml');
    expect(sdk.cases[0]!.evaluators.map(tree)).toEqual(['attachment-check:code_judge']);
  });

  test('no warnings on the corpus', () => {
    for (const f of ['basic', 'rubric', 'composite', 'local-cli', 'code-judge-sdk']) {
      const r = loadSuiteFile(path.join(ROOT, f, 'evals/dataset.yaml'), ws);
      expect(r.diagnostics).toEqual([]);
    }
  });

  test('as shipped, the corpus lacks only its judge scripts: each is a missing-file error, nothing else', () => {
    const raw = new Workspace(path.join(CORPUS, 'agentv'));
    const found = ['basic', 'rubric', 'composite', 'local-cli', 'code-judge-sdk'].flatMap(
      (f) => loadSuiteFile(path.join(CORPUS, 'agentv', f, 'evals/dataset.yaml'), raw).diagnostics,
    );
    expect(found.map((d) => [d.severity, d.rule])).toEqual(
      OMITTED_CORPUS_SCRIPTS.map(() => ['error', 'missing-file']),
    );
    expect(found.map((d) => /\(looked for (.*)\)$/.exec(d.message)![1])).toEqual(OMITTED_CORPUS_SCRIPTS);
  });
});
