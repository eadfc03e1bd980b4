import { isMap, isSeq, parseDocument, parse } from 'yaml';
import { criteriaInsertion } from '../../src/cli/criteria-insertion.js';

function insert(text: string, index: number, criteria: string[]): string | null {
  const doc = parseDocument(text);
  const tests = isMap(doc.contents) ? doc.contents.get('tests', true) : null;
  if (!isSeq(tests)) throw new Error('no tests');
  const item = tests.items[index];
  if (!isMap(item)) throw new Error('not a map');
  const ins = criteriaInsertion(item, text, criteria);
  return ins ? text.slice(0, ins.offset) + ins.text + text.slice(ins.offset) : null;
}

const SUITE = `prompts: ["{{ input }}"]
tests:
  - id: a
    description: Explains recursion
    assert:
      - type: contains
        value: base case
    vars:
      input: Explain recursion   # a comment that stays

  - id: b
    description: Says hello
    vars: { input: hi }
`;

describe('plain-string criteria written into assert', () => {
  test('appended to a block assert list, no existing line changed', () => {
    const out = insert(SUITE, 0, ['Names the base case', 'Shows a call\'s: "stack"'])!;
    // Taking the added lines out gives back the original, byte for byte (comments included).
    const added = out.split('\n').filter((l) => !SUITE.split('\n').includes(l));
    expect(
      out
        .split('\n')
        .filter((l) => !added.includes(l))
        .join('\n'),
    ).toBe(SUITE);
    expect(added).toEqual(['      - Names the base case', `      - "Shows a call's: \\"stack\\""`]);
    expect(parse(out).tests[0].assert).toEqual([
      { type: 'contains', value: 'base case' },
      'Names the base case',
      'Shows a call\'s: "stack"',
    ]);
  });

  test('a test without assert gets one after its last value', () => {
    const out = insert(SUITE, 1, ['Greets the user'])!;
    expect(parse(out).tests[1]).toEqual({
      id: 'b',
      description: 'Says hello',
      vars: { input: 'hi' },
      assert: ['Greets the user'],
    });
    expect(out.startsWith(SUITE)).toBe(true);
  });

  test('a flow-style assert list is not rewritten', () => {
    expect(insert('tests:\n  - id: c\n    assert: [{ type: is-json }]\n', 0, ['x'])).toBeNull();
  });
});
