import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { checkScoreBands } from '../../src/rubric/score-ranges.js';
import { scoreChecklist, scoreRanges, verdictForScore } from '../../src/rubric/scoring.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { parseMarkdownRubric } from '../../src/checker/markdown-rubric.js';
import { Workspace } from '../../src/core/workspace.js';

const pos = { line: 1, column: 1 };
const RUNS = 300;

/** Is this list of bands exactly a partition of 0..10 into non-empty integer bands? (independent oracle) */
function isPartition(bands: { min: number; max: number; outcome: string }[]): boolean {
  const seen = new Array<number>(11).fill(0);
  for (const b of bands) {
    if (
      !Number.isInteger(b.min) ||
      !Number.isInteger(b.max) ||
      b.min > b.max ||
      b.min < 0 ||
      b.max > 10 ||
      b.outcome.trim() === ''
    )
      return false;
    for (let s = b.min; s <= b.max; s++) seen[s]!++;
  }
  return seen.every((n) => n === 1);
}

describe('score-range validator', () => {
  test('accepts every partition of 0..10 into non-empty integer bands', () => {
    const cuts = fc.uniqueArray(fc.integer({ min: 1, max: 10 }), { maxLength: 10 });
    fc.assert(
      fc.property(cuts, (c) => {
        const points = [0, ...[...c].sort((a, b) => a - b), 11];
        const bands = points
          .slice(0, -1)
          .map((p, i) => ({ min: p, max: points[i + 1]! - 1, outcome: `band ${i}`, pos }));
        expect(checkScoreBands(bands, pos)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
  test('accepts exactly the partitions: any band set is valid iff it partitions 0..10', () => {
    const band = fc.record({
      min: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constantFrom(2.5, 0.1)),
      max: fc.integer({ min: -2, max: 12 }),
      outcome: fc.constantFrom('ok', 'fine', '', '  '),
    });
    fc.assert(
      fc.property(fc.array(band, { minLength: 1, maxLength: 6 }), (bands) => {
        const problems = checkScoreBands(
          bands.map((b) => ({ ...b, pos })),
          pos,
        );
        expect(problems.length === 0).toBe(isPartition(bands));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('scores', () => {
  const items = fc.array(
    fc.record({
      weight: fc.double({ min: 0, max: 10, noNaN: true }),
      required: fc.boolean(),
      satisfied: fc.boolean(),
    }),
    { minLength: 1, maxLength: 8 },
  );
  test('checklist scores stay in [0, 1] and never decrease when a check improves', () => {
    fc.assert(
      fc.property(items, fc.nat(), (list, k) => {
        const rubric = list.map((x, i) => ({
          id: `r${i}`,
          outcome: 'x',
          weight: x.weight,
          required: x.required,
        }));
        const answers = new Map(list.map((x, i) => [`r${i}`, { satisfied: x.satisfied, reasoning: null }]));
        const before = scoreChecklist(rubric, answers);
        expect(before.score).toBeGreaterThanOrEqual(0);
        expect(before.score).toBeLessThanOrEqual(1);
        const flip = `r${k % list.length}`;
        const improved = new Map(answers);
        improved.set(flip, { satisfied: true, reasoning: null });
        const after = scoreChecklist(rubric, improved);
        expect(after.score + 1e-12).toBeGreaterThanOrEqual(before.score);
        expect(after.gating_violations.length).toBeLessThanOrEqual(before.gating_violations.length);
      }),
      { numRuns: RUNS },
    );
  });
  test('range scores stay in [0, 1] and never decrease when a criterion scores higher', () => {
    const crit = fc.array(
      fc.record({
        weight: fc.double({ min: 0, max: 5, noNaN: true }),
        score: fc.integer({ min: 0, max: 10 }),
        min: fc.option(fc.integer({ min: 0, max: 10 })),
      }),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(crit, fc.nat(), fc.integer({ min: 1, max: 10 }), (list, k, bump) => {
        const rubric = list.map((x, i) => ({
          id: `c${i}`,
          outcome: '',
          weight: x.weight,
          requiredMinScore: x.min,
          bands: [],
        }));
        const answers = new Map(list.map((x, i) => [`c${i}`, { score: x.score, reasoning: null }]));
        const before = scoreRanges(rubric, answers);
        expect(before.score).toBeGreaterThanOrEqual(0);
        expect(before.score).toBeLessThanOrEqual(1);
        const id = `c${k % list.length}`;
        const improved = new Map(answers);
        improved.set(id, { score: Math.min(10, answers.get(id)!.score + bump), reasoning: null });
        expect(scoreRanges(rubric, improved).score + 1e-12).toBeGreaterThanOrEqual(before.score);
      }),
      { numRuns: RUNS },
    );
  });
  test('verdict thresholds are monotone in the score', () => {
    const rank = { fail: 0, borderline: 1, pass: 2 };
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(rank[verdictForScore(lo)]).toBeLessThanOrEqual(rank[verdictForScore(hi)]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('loaders never crash or hang on hostile input', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-fuzz-'));
  const ws = new Workspace(dir);
  const suiteLike = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(
        fc.constantFrom(
          'id',
          'input',
          'rubrics',
          'score_ranges',
          'score_range',
          'expected_outcome',
          'weight',
          'required',
          'execution',
          'evaluators',
          'type',
          'name',
          'content',
          'role',
          'evalcases',
          'aggregator',
          'weights',
          'script',
          'prompt',
          'x',
        ),
        tie('value'),
        { maxKeys: 5 },
      ),
    ),
  })).value;

  test('random suite-shaped documents give a suite or diagnostics naming the file', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.oneof(suiteLike, fc.record({ evalcases: fc.array(suiteLike, { maxLength: 3 }) })),
        (doc) => {
          const file = path.join(dir, `s${n++}.yaml`);
          writeFileSync(file, stringify(doc));
          const started = Date.now();
          const r = loadSuiteFile(file, ws);
          expect(Date.now() - started).toBeLessThan(2000);
          if (!r.suite) {
            expect(r.diagnostics.length).toBeGreaterThan(0);
            for (const d of r.diagnostics) expect(d.file).toBe(`s${n - 1}.yaml`);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('mutated corpus-like text (byte flips, truncation) gives a suite or diagnostics, never a throw', () => {
    const base =
      'evalcases:\n  - id: a\n    input: hi\n    rubrics:\n      - id: r\n        score_ranges:\n          0: low\n          5: high\n  - id: b\n    input: [{role: user, content: [{type: file, value: ../x}]}]\n';
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.constantFrom(':', '-', ' ', '\n', '[', '{', '&a', '*a', '"', "'", '\t', '#', '!!binary', '|'),
          ),
          { maxLength: 6 },
        ),
        fc.nat(),
        (edits, cut) => {
          let text = base;
          for (const [at, ch] of edits) {
            const i = at % text.length;
            text = text.slice(0, i) + ch + text.slice(i + 1);
          }
          text = text.slice(0, base.length - (cut % 20));
          const file = path.join(dir, `m${n++}.yaml`);
          writeFileSync(file, text);
          const r = loadSuiteFile(file, ws);
          expect(r.suite !== undefined || r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('random markdown never crashes the rubric parser and ids stay dense', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '## Gates',
        '## Criteria',
        '## Nice to Have',
        '## Notes',
        '# T',
        '## Other',
        '- `cmd`',
        '- text',
        '```',
        '  continued',
        '',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const { rubric } = parseMarkdownRubric(lines.join('\n'), 'r.md');
        expect(rubric.criteria.map((c) => c.id)).toEqual(rubric.criteria.map((_, i) => `must-${i + 1}`));
        expect(rubric.niceToHave.map((c) => c.id)).toEqual(rubric.niceToHave.map((_, i) => `nice-${i + 1}`));
        for (const g of rubric.gates) expect(g.command.trim()).not.toBe('');
      }),
      { numRuns: RUNS },
    );
  });
});
