import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../../src/diagnostics.js';
import { parseMarkdownRubric, rubricFromInput } from '../../src/suite/markdown-rubric.js';
import { Workspace } from '../../src/suite/workspace.js';
import { CORPUS, describeCorpus } from '../helpers/paths.js';

const scope = (name: string) => {
  const text = readFileSync(path.join(CORPUS, 'scope', name), 'utf8');
  return parseMarkdownRubric(text, `scope/${name}`);
};
const brief = (name: string) => {
  const { rubric, diagnostics } = scope(name);
  return {
    title: rubric.title,
    gates: rubric.gates.map((g) => g.command),
    must: rubric.criteria.map((c) => `${c.id} ${c.text}`),
    nice: rubric.niceToHave.map((c) => `${c.id} ${c.text}`),
    notes: rubric.notes,
    diagnostics: diagnostics.map(formatDiagnostic),
  };
};

describeCorpus('corpus scope rubrics parse as their authors meant', () => {
  test('search-feature-rubric.md (the seed example)', () => {
    expect(brief('search-feature-rubric.md')).toEqual({
      title: 'Search Feature',
      gates: ['pytest tests/test_search.py', 'ruff check src/search/'],
      must: [
        'must-1 Search results are relevant to query intent, not just keyword matching',
        'must-2 Empty queries, special characters, and very long queries handled gracefully',
        'must-3 Error states show user-friendly messages, not stack traces',
      ],
      nice: [
        'nice-1 Performance: search returns within 200ms for typical queries',
        'nice-2 Code follows existing naming conventions in the module',
      ],
      notes:
        'Context for the checker agent (not scored).\nThe search uses Elasticsearch. Focus on the API layer.',
      diagnostics: [],
    });
  });
  test('test_parse_rubric_full.md', () => {
    const b = brief('test_parse_rubric_full.md');
    expect(b.gates).toEqual(['pytest tests/test_search.py', 'ruff check src/search/']);
    expect(b.must).toHaveLength(3);
    expect(b.nice).toEqual([
      'nice-1 Performance: search returns within 200ms',
      'nice-2 Code follows existing naming conventions',
    ]);
    expect(b.notes).toBe('The search uses Elasticsearch. Focus on the API layer.');
  });
  test('gates only, criteria only, no title, load_rubric', () => {
    expect(brief('test_parse_rubric_gates_only.md')).toMatchObject({
      title: null,
      gates: ['pytest tests/', 'ruff check'],
      must: [],
      nice: [],
    });
    expect(brief('test_parse_rubric_criteria_only.md')).toMatchObject({
      gates: [],
      must: ['must-1 Code is correct', 'must-2 Tests pass'],
    });
    expect(brief('test_parse_rubric_no_title.md')).toMatchObject({ title: null, gates: ['make test'] });
    expect(brief('test_load_rubric.md')).toMatchObject({ gates: ['pytest'], must: ['must-1 Code works'] });
  });
  test('a gate bullet without backticks is not run, and is warned about with its line', () => {
    expect(brief('test_parse_rubric_gate_without_backticks_ignored.md')).toMatchObject({
      gates: ['pytest tests/', 'ruff check'],
      diagnostics: [
        "scope/test_parse_rubric_gate_without_backticks_ignored.md:3:1 warning: gate-without-backticks: gate bullet 'bare command without backticks' has no `command` in backticks; it is not run",
      ],
    });
  });
  test('notes only parses, but cannot be used as the run rubric: nothing could fail it', () => {
    expect(brief('test_parse_rubric_notes_only.md')).toMatchObject({
      gates: [],
      must: [],
      notes: 'Some context about the project.\nMultiple lines of notes.',
    });
    const ws = new Workspace(CORPUS);
    const r = rubricFromInput('scope/test_parse_rubric_notes_only.md', ws);
    expect(r.rubric).toBeUndefined();
    expect(r.diagnostics.map((d) => d.rule)).toEqual(['empty-rubric']);
  });
});

test('headings are case-insensitive, Nice-to-Have is accepted, unknown sections are warned about', () => {
  const { rubric, diagnostics } = parseMarkdownRubric(
    '# T\n## GATES\n- `make`\n## nice-to-have\n- fast\n## Approach\n- ignored\n## criteria\n- works\n  across lines\n',
    'r.md',
  );
  expect(rubric.gates.map((g) => [g.command, g.line])).toEqual([['make', 3]]);
  expect(rubric.niceToHave.map((c) => c.text)).toEqual(['fast']);
  expect(rubric.criteria.map((c) => [c.id, c.text, c.line])).toEqual([['must-1', 'works across lines', 9]]);
  expect(diagnostics.map(formatDiagnostic)).toEqual([
    "r.md:6:1 warning: unknown-section: section '## Approach' is not one of Gates, Criteria, Nice to Have, Notes; its content is ignored",
  ]);
});

test('the hash is the first 12 hex digits of sha256 and changes with the text', () => {
  const a = parseMarkdownRubric('## Gates\n- `a`\n', 'r.md').rubric.hash;
  const b = parseMarkdownRubric('## Gates\n- `b`\n', 'r.md').rubric.hash;
  expect(a).toMatch(/^[0-9a-f]{12}$/);
  expect(a).not.toBe(b);
});

describeCorpus('sugar', () => {
  const ws = new Workspace(CORPUS);
  test('a shell command is a gates-only rubric', () => {
    const r = rubricFromInput('npm test', ws).rubric!;
    expect(r.source).toBe('command');
    expect(r.gates.map((g) => g.command)).toEqual(['npm test']);
    expect(r.criteria).toEqual([]);
  });
  test('a command containing backticks stays whole', () => {
    expect(rubricFromInput('echo `date` && make', ws).rubric!.gates.map((g) => g.command)).toEqual([
      'echo `date` && make',
    ]);
  });
  test('agent: text is a criteria-only rubric', () => {
    const r = rubricFromInput('agent: Review for correctness', ws).rubric!;
    expect(r.source).toBe('agent');
    expect(r.gates).toEqual([]);
    expect(r.criteria).toEqual([{ id: 'must-1', text: 'Review for correctness', line: 2 }]);
  });
  test('a missing rubric file is an error, never an automatic pass', () => {
    const r = rubricFromInput('missing/RUBRIC.md', ws);
    expect(r.rubric).toBeUndefined();
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([
      'missing/RUBRIC.md missing-file: rubric file not found: missing/RUBRIC.md',
    ]);
  });
  test('a rubric path escaping the workspace is refused', () => {
    expect(rubricFromInput('../../etc/x.md', ws).diagnostics.map((d) => d.rule)).toEqual([
      'escapes-workspace',
    ]);
  });
});
