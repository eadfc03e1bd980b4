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
