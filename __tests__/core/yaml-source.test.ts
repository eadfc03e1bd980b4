import { stringify } from 'yaml';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { MAX_NESTING_DEPTH } from '../../src/core/nesting.js';
import { parseYamlSource } from '../../src/core/yaml-source.js';

/** A value `levels` objects deep (the root counts as one), written as YAML of each kind. */
const shapes: Record<string, (levels: number) => string> = {
  'block mappings': (levels) =>
    Array.from({ length: levels - 1 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') +
    `\n${'  '.repeat(levels - 1)}leaf: 1\n`,
  'block sequences': (levels) => `${'- '.repeat(levels)}1\n`,
  'flow sequences': (levels) => `${'['.repeat(levels)}1${']'.repeat(levels)}\n`,
  'flow mappings': (levels) => `${'{a: '.repeat(levels)}1${'}'.repeat(levels)}\n`,
  'sequences and mappings in turn': (levels) => {
    let value: unknown = 1;
    for (let i = levels - 1; i >= 0; i--) value = i % 2 ? { [`k${i}`]: value } : [value];
    return stringify(value);
  },
};

describe.each(Object.entries(shapes))('nesting limit, %s', (_kind, yaml) => {
  const depth = (levels: number) => {
    const sink = new DiagnosticSink('suite.yaml');
    const doc = parseYamlSource(yaml(levels), sink);
    return { doc, rules: sink.items.map((d) => d.rule) };
  };
  test(`${MAX_NESTING_DEPTH} levels are read; one more is refused as too deep, with a position`, () => {
    expect(depth(MAX_NESTING_DEPTH)).toMatchObject({ rules: [] });
    expect(depth(MAX_NESTING_DEPTH).doc).toBeDefined();
    const over = new DiagnosticSink('suite.yaml');
    expect(parseYamlSource(yaml(MAX_NESTING_DEPTH + 1), over)).toBeUndefined();
    expect(over.items.map((d) => d.rule)).toEqual(['too-deep']);
    expect(over.items[0]!.line).toBeGreaterThanOrEqual(1);
  });
});

test('a large document (its strings copied out of the text) reads the same values and positions', () => {
  const cases = Array.from({ length: 2000 }, (_, i) => ({
    id: `case-${i}`,
    input: `[ticket ${i}] how do I get a refund for a duplicate charge?`,
    rubrics: ['Explains where to request the refund', 'Keeps a friendly tone'],
  }));
  const text = stringify({ evalcases: cases });
  expect(text.length).toBeGreaterThan(64 * 1024);
  const doc = parseYamlSource(text, new DiagnosticSink('big.yaml'))!;
  expect(doc.value).toEqual({ evalcases: cases });
  const line = text.split('\n').findIndex((l) => l.includes('id: case-1500')) + 1;
  expect(doc.position(['evalcases', 1500])).toEqual({ line, column: 5 });
});
