import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { editDistance } from '../../src/core/did-you-mean.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import {
  KNOWN_AGGREGATOR_KEYS,
  KNOWN_BAND_KEYS,
  KNOWN_CASE_KEYS,
  KNOWN_EXECUTION_KEYS,
  KNOWN_MESSAGE_KEYS,
  KNOWN_RUBRIC_KEYS,
  KNOWN_SUITE_KEYS,
  knownEvaluatorKeys,
} from '../../src/suite/v2/schema.js';
import { Workspace } from '../../src/core/workspace.js';

type Obj = Record<string, unknown>;

/** Every key the suite format knows anywhere: a "misspelling" that lands on one is not a typo. */
const ALL_KNOWN = new Set([
  ...KNOWN_SUITE_KEYS,
  ...KNOWN_CASE_KEYS,
  ...KNOWN_EXECUTION_KEYS,
  ...KNOWN_MESSAGE_KEYS,
  ...KNOWN_RUBRIC_KEYS,
  ...KNOWN_BAND_KEYS,
  ...KNOWN_AGGREGATOR_KEYS,
  ...['llm_judge', 'code_judge', 'composite'].flatMap((t) => [...knownEvaluatorKeys(t)!]),
]);

const word = fc.stringMatching(/^[a-z][a-z ]{2,20}$/);
const ident = fc.stringMatching(/^[a-z][a-z0-9_-]{1,10}$/);
const fullRange = [
  { score_range: [0, 4], expected_outcome: 'poor' },
  { score_range: [5, 10], expected_outcome: 'good' },
];
const checklistItem = fc.record({
  id: ident,
  expected_outcome: word,
  weight: fc.nat(3),
  required: fc.boolean(),
});
const rangeItem = fc.record({
  id: ident,
  expected_outcome: word,
  weight: fc.nat(3),
  required_min_score: fc.integer({ min: 0, max: 10 }),
  score_ranges: fc.constant(fullRange),
});
const rubrics = fc.oneof(
  fc.uniqueArray(checklistItem, { minLength: 1, maxLength: 3, selector: (r) => r.id }),
  fc.uniqueArray(rangeItem, { minLength: 1, maxLength: 2, selector: (r) => r.id }),
);
const codeJudge = (name: string) => ({ name, type: 'code_judge', weight: 1, script: ['node', 'judge.mjs'] });
const evaluators = fc.constantFrom(
  [{ name: 'quality', type: 'llm_judge', weight: 2 }],
  [codeJudge('words')],
  [
    {
      name: 'gate',
      type: 'composite',
      evaluators: [codeJudge('a'), codeJudge('b')],
      aggregator: { type: 'weighted_average', weights: { a: 1 } },
    },
  ],
);
const evalCase = fc.record(
  {
    id: ident,
    expected_outcome: word,
    input: fc.oneof(
      word,
      word.map((w) => [{ role: 'user', content: w }]),
    ),
    rubrics,
    execution: evaluators.map((e) => ({ evaluators: e })),
  },
  { requiredKeys: ['id', 'input'] },
);
const suite = fc.record(
  {
    description: word,
    execution: fc.constant({ target: 'default' }),
    evalcases: fc.uniqueArray(evalCase, { minLength: 1, maxLength: 3, selector: (c) => c.id }),
  },
  { requiredKeys: ['evalcases'] },
);

/** Paths of every key a user writes by name (not map keys such as composite weights). */
function keyPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keyPaths(v, [...at, i]));
  if (value === null || typeof value !== 'object') return [];
  if (at[at.length - 1] === 'weights') return [];
  return Object.entries(value).flatMap(([k, v]) => [[...at, k], ...keyPaths(v, [...at, k])]);
}

/** One to two random edits (insert, delete, substitute, swap neighbours) of a key. */
const misspelling = (key: string) =>
  fc
    .array(
      fc.tuple(
        fc.constantFrom('ins', 'del', 'sub', 'swap'),
        fc.nat(),
        fc.constantFrom(...'abcdeimnoqrstuwz_'),
      ),
      { minLength: 1, maxLength: 2 },
    )
    .map((edits) => {
      let k = key;
      for (const [op, at, ch] of edits) {
        const i = at % (k.length + (op === 'ins' ? 1 : 0));
        if (op === 'ins') k = k.slice(0, i) + ch + k.slice(i);
        else if (op === 'del' && k.length > 1) k = k.slice(0, i) + k.slice(i + 1);
        else if (op === 'sub') k = k.slice(0, i) + ch + k.slice(i + 1);
        else if (op === 'swap' && i + 1 < k.length) k = k.slice(0, i) + k[i + 1] + k[i] + k.slice(i + 2);
      }
      return k;
    });

function renameKey(root: unknown, p: (string | number)[], to: string): void {
  const parent = p.slice(0, -1).reduce<unknown>((o, seg) => (o as Obj)[seg], root) as Obj;
  const from = p[p.length - 1] as string;
  // Keep the key's place, so positions and the file read as the user wrote them.
  const entries = Object.entries(parent).map(([k, v]) => [k === from ? to : k, v] as const);
  for (const k of Object.keys(parent)) delete parent[k];
  for (const [k, v] of entries) parent[k] = v;
}

test('a random suite with one key misspelled (1-2 edits) never validates silently', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-typo-'));
  writeFileSync(path.join(dir, 'judge.mjs'), 'console.log(JSON.stringify({ score: 1 }))\n');
  const ws = new Workspace(dir);
  // A new file each time: the workspace reads a path once.
  let n = 0;
  const fresh = () => path.join(dir, `s${n++}.yaml`);
  const target = suite.chain((s) => {
    const paths = keyPaths(s);
    return fc
      .nat(paths.length - 1)
      .chain((i) => fc.tuple(fc.constant(s), fc.constant(paths[i]!), misspelling(String(paths[i]!.at(-1)))));
  });
  let checked = 0;
  fc.assert(
    fc.property(target, ([s, p, typo]) => {
      const original = String(p.at(-1));
      const d = editDistance(typo, original);
      fc.pre(d >= 1 && d <= 2 && !ALL_KNOWN.has(typo));
      // The unmodified suite is clean: whatever is reported below is the typo's doing.
      const clean = fresh();
      writeFileSync(clean, stringify(s));
      expect(loadSuiteFile(clean, ws).diagnostics.map(formatDiagnostic)).toEqual([]);
      const copy = structuredClone(s);
      renameKey(copy, p, typo);
      const file = fresh();
      writeFileSync(file, stringify(copy));
      const found = loadSuiteFile(file, ws).diagnostics;
      const named = found.some((x) => x.message.includes(`'${typo}'`));
      expect(named || found.some((x) => x.severity === 'error')).toBe(true);
      checked++;
    }),
    { numRuns: 150 },
  );
  expect(checked).toBeGreaterThan(60);
});
