import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { parseMarkdownRubric, rubricFromInput } from '../../src/checker/markdown-rubric.js';
import { Workspace } from '../../src/core/workspace.js';
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

describe('read as CommonMark', () => {
  const read = (text: string) => {
    const { rubric, diagnostics } = parseMarkdownRubric(text, 'r.md');
    return {
      gates: rubric.gates.map((g) => g.command),
      must: rubric.criteria.map((c) => c.text),
      nice: rubric.niceToHave.map((c) => c.text),
      notes: rubric.notes,
      diagnostics: diagnostics.map(formatDiagnostic),
    };
  };

  test('a code span of two backticks holds single backticks: the whole command runs', () => {
    expect(read('## Gates\n- `` ! grep -q `printf TODO` src.txt ``\n').gates).toEqual([
      '! grep -q `printf TODO` src.txt',
    ]);
    expect(read('## Gates\n- ```` a ``` b ````\n').gates).toEqual(['a ``` b']);
  });

  test('a ``` line inside a ~~~ fence does not end it, and the criteria after the fence stay criteria', () => {
    const r = read(
      '## Gates\n- `make`\n\n~~~\n```\n- `rm -rf /`\n~~~\n\n## Criteria\n- The change keeps the API\n',
    );
    expect(r.gates).toEqual(['make']);
    expect(r.must).toEqual(['The change keeps the API']);
    expect(r.diagnostics).toEqual([]);
  });

  test('a longer fence is closed only by a fence at least as long', () => {
    const r = read('## Gates\n````\n```\n- `inside`\n```\n````\n- `outside`\n');
    expect(r.gates).toEqual(['outside']);
  });

  test('nested gate bullets run; a bullet that only groups them is not warned about', () => {
    const r = read('## Gates\n- Tests\n  - `npm test`\n  * `npm run lint`\n- `make`\n');
    expect(r.gates).toEqual(['npm test', 'npm run lint', 'make']);
    expect(r.diagnostics).toEqual([]);
  });

  test("a criterion's nested bullets are part of it", () => {
    expect(read('## Criteria\n- Errors are handled\n  - timeouts\n  - bad input\n- Fast\n').must).toEqual([
      'Errors are handled - timeouts - bad input',
      'Fast',
    ]);
  });

  test('setext headings open sections', () => {
    const r = read('Title\n=====\n\nGates\n-----\n- `make`\n\nCriteria\n--------\n- Works\n');
    expect(r).toMatchObject({ gates: ['make'], must: ['Works'] });
    expect(parseMarkdownRubric('Title\n=====\n', 'r.md').rubric.title).toBe('Title');
    expect(parseMarkdownRubric('#\n\n# Real `title`\n', 'r.md').rubric.title).toBe('Real `title`');
  });

  test('an HTML comment hides what it holds, over several lines', () => {
    const r = read(
      '## Gates\n<!--\n- `rm -rf build`\n-->\n- `make`\n\n## Criteria\n<!-- - hidden -->\n- Shown\n',
    );
    expect(r.gates).toEqual(['make']);
    expect(r.must).toEqual(['Shown']);
  });

  test('escaped backticks are text: the bullet has no command and is warned about, not an error', () => {
    const r = read('## Gates\n- \\`npm test\\`\n');
    expect(r.gates).toEqual([]);
    expect(r.diagnostics).toEqual([
      "r.md:2:1 warning: gate-without-backticks: gate bullet '\\`npm test\\`' has no `command` in backticks; it is not run",
    ]);
  });

  test('a gate whose code span is never closed is an error at its line and column, never a shorter command', () => {
    const r = read('# T\n## Gates\n- `make\n- ``npm `x` test`\n- `ok`\n');
    expect(r.gates).toEqual(['ok']);
    expect(r.diagnostics).toEqual([
      "r.md:3:3 unclosed-code-span: gate bullet '`make' has a backtick run that closes no code span (a code span ends with a run of as many backticks as it starts with); it is not run",
      "r.md:4:3 unclosed-code-span: gate bullet '``npm `x` test`' has a backtick run that closes no code span (a code span ends with a run of as many backticks as it starts with); it is not run",
    ]);
  });

  test('a heading inside a list or a quote does not open a section', () => {
    const r = read('## Criteria\n- Works\n\n> ## Gates\n> - `quoted`\n');
    expect(r.gates).toEqual([]);
    expect(r.must).toEqual(['Works']);
  });

  test('a long bullet is cut in the warning, with a marker saying how much was left out', () => {
    const long = 'x'.repeat(50_000);
    const [message] = read(`## Gates\n- ${long}\n`).diagnostics;
    expect(message!.length).toBeLessThan(300);
    expect(message).toContain(`${'x'.repeat(120)}… (49880 more characters)`);
  });
});

test('a rubric file over 128 KB is refused before it is parsed', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-big-rubric-'));
  writeFileSync(path.join(dir, 'BIG.md'), `## Gates\n${'- `true`\n'.repeat(20_000)}`);
  const r = rubricFromInput('BIG.md', new Workspace(dir));
  expect(r.rubric).toBeUndefined();
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([
    'BIG.md too-large: rubric file is 180009 bytes; a rubric may be at most 131072 bytes',
  ]);
});

test('any one-line command written in a long enough code span comes back whole', () => {
  const piece = fc.oneof(
    fc.constantFrom(
      '`',
      '``',
      '```',
      '\\',
      '\\`',
      '<!--',
      '-->',
      '*',
      '_',
      '[',
      ']',
      '&amp;',
      '$',
      "'",
      '"',
      ' ',
    ),
    fc.string({ unit: 'grapheme-ascii', maxLength: 5 }),
  );
  const command = fc
    .array(piece, { minLength: 1, maxLength: 10 })
    .map((p) =>
      p
        .join('')
        .replace(/[\r\n]/g, ' ')
        .trim(),
    )
    .filter((c) => c !== '');
  fc.assert(
    fc.property(command, fc.constantFrom('-', '*', '+', '1.'), (cmd, bullet) => {
      const longest = Math.max(0, ...(cmd.match(/`+/g) ?? []).map((r) => r.length));
      const fence = '`'.repeat(longest + 1);
      const { rubric, diagnostics } = parseMarkdownRubric(
        `## Gates\n${bullet} ${fence} ${cmd} ${fence}\n`,
        'r.md',
      );
      expect(diagnostics).toEqual([]);
      expect(rubric.gates.map((g) => g.command)).toEqual([cmd]);
    }),
    { numRuns: 300 },
  );
});
