/**
 * The CommonMark reading of a rubric must give the same gates, criteria, notes and warnings as the
 * line parser it replaced, for every rubric written in the format the seeds define. The snapshot
 * beside this file was recorded from the line parser before the switch; it is the comparison.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { parseMarkdownRubric } from '../../src/checker/markdown-rubric.js';
import { CORPUS, describeCorpus, REPO_ROOT } from '../helpers/paths.js';

const SEEDS = path.resolve(REPO_ROOT, '../shared/seeds');

function outcome(text: string, display: string) {
  const { rubric, diagnostics } = parseMarkdownRubric(text, display);
  return {
    title: rubric.title,
    gates: rubric.gates.map((g) => `${g.line}: ${g.command}`),
    must: rubric.criteria.map((c) => `${c.line}: ${c.id} ${c.text}`),
    nice: rubric.niceToHave.map((c) => `${c.line}: ${c.id} ${c.text}`),
    notes: rubric.notes,
    hash: rubric.hash,
    diagnostics: diagnostics.map(formatDiagnostic),
  };
}

/** The ```markdown examples of a seed: the rubric format and the sugar's expansions. */
function markdownBlocks(text: string): string[] {
  return [...text.matchAll(/^```markdown\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describeCorpus('the scope corpus rubrics read the same as with the line parser', () => {
  const files = readdirSync(path.join(CORPUS, 'scope')).filter((f) => f.endsWith('.md'));
  test('the corpus has its eight rubrics', () => {
    expect(files).toHaveLength(8);
  });
  test.each(files)('%s', (file) => {
    const text = readFileSync(path.join(CORPUS, 'scope', file), 'utf8');
    expect(outcome(text, `scope/${file}`)).toMatchSnapshot();
  });
});

const seedTest = existsSync(SEEDS) ? test : test.skip;
seedTest("the seeds' markdown examples read the same as with the line parser", () => {
  const seeds = readdirSync(SEEDS).filter((f) => f.endsWith('.txt'));
  const blocks = seeds.flatMap((f) =>
    markdownBlocks(readFileSync(path.join(SEEDS, f), 'utf8')).map((b, i) => ({ name: `${f}#${i + 1}`, b })),
  );
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  expect(Object.fromEntries(blocks.map(({ name, b }) => [name, outcome(b, name)]))).toMatchSnapshot();
});

/**
 * Rubrics in the seed format that the line parser already read as CommonMark does: ordered and
 * `*`/`+` bullets, continuation lines, a fenced block in the notes, closing `#`s, a colon after a
 * section name, CRLF line ends, a third-level heading inside a section.
 */
const WRITTEN_LIKE_THE_SEEDS: Record<string, string> = {
  bullets: '# Bullets\n\n## Gates\n* `npm test`\n+ `npm run lint`\n1. `make check`\n2) `tsc --noEmit`\n',
  continuation:
    '## Criteria\n- The answer names the function\n  and its return type\n- Handles errors\n\n## Nice to Have\n- Short\n',
  fencedNotes:
    '## Gates\n- `pytest -q`\n\n## Notes\nRun from the root:\n\n```sh\npytest -q\n```\n\nThat is all.\n',
  closingHashes: '# Title\n\n## Gates ##\n- `make`\n\n## Criteria:\n- Works\n',
  crlf: '# T\r\n\r\n## Gates\r\n- `npm test`\r\n\r\n## Criteria\r\n- Works\r\n',
  subheading: '## Criteria\n### Behaviour\n- Returns 200\n### Style\n- Follows the lint rules\n',
  textAroundGate: '## Gates\n- Run `npm test` first\n- `npm run build` (the bundle)\n',
  emptyCodeSpan: '## Gates\n- ` `\n- `ok`\n',
  mixed:
    'Intro text before any section.\n\n# Feature\n\n## Gates\n- `a`\n- no command\n\n## Approach\n- ignored\n\n## Must-Haves\n- First\n- Second\n\n## nice to haves\n- Later\n',
};

test.each(Object.keys(WRITTEN_LIKE_THE_SEEDS))(
  'a rubric written like the seeds reads the same: %s',
  (name) => {
    expect(outcome(WRITTEN_LIKE_THE_SEEDS[name]!, `${name}.md`)).toMatchSnapshot();
  },
);
