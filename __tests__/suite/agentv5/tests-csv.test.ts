import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readCsv } from '../../../src/suite/agentv5/csv-rows.js';
import { assertionFromCell } from '../../../src/suite/agentv5/tests-csv.js';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { Workspace } from '../../../src/core/workspace.js';
import { tmpDir } from '../../helpers/judge.js';
import { CORPUS, corpusTest } from '../../helpers/paths.js';

describe('RFC 4180 reader', () => {
  test('quoted fields hold commas, doubled quotes and line breaks; each record keeps its first line', () => {
    const r = readCsv('\ufeffa,b\r\n"x, y","say ""hi"""\n\n"multi\nline",z\nlast,');
    expect(r).toEqual({
      ok: true,
      records: [
        { fields: ['a', 'b'], line: 1 },
        { fields: ['x, y', 'say "hi"'], line: 2 },
        { fields: ['multi\nline', 'z'], line: 4 },
        { fields: ['last', ''], line: 6 },
      ],
    });
  });

  test('an unclosed quote and a stray quote are errors at their line', () => {
    expect(readCsv('a\n"open\nstill')).toMatchObject({ ok: false, line: 2 });
    expect(readCsv('a,b\nx,y"z\n')).toMatchObject({ ok: false, line: 2 });
    expect(readCsv('a,b\n"x"y,z\n')).toMatchObject({ ok: false, line: 2 });
  });
});

test("`__expected` cells in promptfoo's short syntax", () => {
  expect(assertionFromCell('contains:Paris')).toEqual({ type: 'contains', value: 'Paris' });
  expect(assertionFromCell('not-icontains: london ')).toEqual({ type: 'not-icontains', value: 'london' });
  expect(assertionFromCell('contains-any:a, b,c')).toEqual({ type: 'contains-any', value: ['a', 'b', 'c'] });
  expect(assertionFromCell('grade: Is polite')).toEqual({ type: 'llm-rubric', value: 'Is polite' });
  expect(assertionFromCell('llm-rubric(0.7):Is polite')).toEqual({
    type: 'llm-rubric',
    value: 'Is polite',
    threshold: 0.7,
  });
  expect(assertionFromCell('is-json')).toEqual({ type: 'is-json' });
  expect(assertionFromCell('latency(500)')).toEqual({ type: 'latency', threshold: 500 });
  expect(assertionFromCell('javascript: output.length < 9')).toEqual({
    type: 'javascript',
    value: 'output.length < 9',
  });
  // Without a known type, the whole cell is the expected answer.
  expect(assertionFromCell('Paris: the capital')).toEqual({ type: 'equals', value: 'Paris: the capital' });
});

function suite(csv: string) {
  const root = tmpDir('re-csv-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'evals/cases.csv'), csv);
  writeFileSync(
    path.join(root, 'evals/suite.yaml'),
    'prompts: ["Q: {{ question }}"]\ntests: file://cases.csv\n',
  );
  return loadSuiteFile(path.join(root, 'evals/suite.yaml'), new Workspace(root));
}

test('a CSV dataset: columns are vars, __expected columns assertions, with description, metric, threshold', () => {
  const r = suite(
    'question,__expected,__expected2,__description,__metric,__threshold,__config:__expected2:threshold\n' +
      'France?,icontains:paris,grade:Names the capital,capital of France,capital,0.6,0.7\n' +
      '"Spain, please",Madrid,,,,,\n',
  );
  expect(r.diagnostics).toEqual([]);
  const [a, b] = r.suite!.cases;
  expect(a!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'Q: France?' }]);
  expect(a!.expectedOutcome).toBe('capital of France');
  expect(a!.scoring).toEqual({ kind: 'promptfoo', threshold: 0.6 });
  expect(a!.evaluators).toMatchObject([
    { name: 'capital-1', type: 'text_assertion', check: 'icontains', values: ['paris'] },
    { name: 'capital-2', type: 'llm_judge', rubricScore: { rubric: 'Names the capital', threshold: 0.7 } },
  ]);
  expect(b!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'Q: Spain, please' }]);
  expect(b!.evaluators).toMatchObject([{ type: 'text_assertion', check: 'equals', values: ['Madrid'] }]);
});

test('problems in a CSV file are reported at its file:line, by name', () => {
  const r = suite(
    'question,__expected,__threshold\n' +
      'a,contains:x,0.5\n' +
      'b,javascript: output.length > 1,\n' +
      'c,similar(0.8):hello,\n' +
      'd,x,2,extra\n',
  );
  expect(r.diagnostics.map((d) => `${d.file}:${d.line} ${d.rule}`)).toEqual([
    'evals/cases.csv:5 csv',
    'evals/cases.csv:5 size',
  ]);
  const bad = suite('question,__prefix\na,b\n');
  expect(bad.diagnostics.map((d) => `${d.file}:${d.line} ${d.rule} ${d.message}`)).toEqual([
    "evals/cases.csv:1 unsupported-column column '__prefix' (a prefix added to the prompt) is not read by rubric-eval",
  ]);
  const quote = suite('question,__expected\n"open,x\n');
  expect(quote.diagnostics.map((d) => `${d.file}:${d.line} ${d.rule}`)).toEqual(['evals/cases.csv:2 csv']);
});

corpusTest("AgentV 5's CSV example loads with its vars.input column, metric and threshold", () => {
  const root = path.join(CORPUS, 'agentv5-examples');
  const r = loadSuiteFile(
    path.join(root, 'examples/features/external-datasets/evals/suite.yaml'),
    new Workspace(root),
  );
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const csv = r.suite!.cases.find((c) => c.id === 'csv-magic-greeting')!;
  expect(csv.scoring).toEqual({ kind: 'threshold', threshold: 0.8 });
  expect(csv.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'Reply with a short greeting' }]);
  expect(csv.evaluators).toMatchObject([{ name: 'greeting', check: 'icontains', values: ['hello'] }]);
});
