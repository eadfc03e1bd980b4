import { prepareTextAssertion, scoreTextAssertion } from '../../src/evaluators/text-assertion.js';
import { type TextAssertionConfig, type TextCheck } from '../../src/suite/types.js';

const check = (
  c: TextCheck,
  values: string[],
  extra: Partial<TextAssertionConfig> = {},
): TextAssertionConfig => ({
  type: 'text_assertion',
  check: c,
  values,
  flags: null,
  schema: null,
  name: c,
  weight: 1,
  pos: { line: 1, column: 1 },
  ...extra,
});
const score = (c: TextAssertionConfig, out: string) => scoreTextAssertion(c, out).score;

describe('text assertions (AgentV 5 semantics)', () => {
  test.each([
    ['equals', ['Paris'], '  Paris\n', 1],
    ['equals', ['Paris'], 'paris', 0],
    ['contains', ['Par'], 'in Paris', 1],
    ['contains', ['par'], 'in Paris', 0],
    ['icontains', ['PAR'], 'in Paris', 1],
    ['contains-any', ['x', 'Par'], 'Paris', 1],
    ['contains-any', ['x', 'y'], 'Paris', 0],
    ['contains-all', ['Pa', 'is'], 'Paris', 1],
    ['contains-all', ['Pa', 'zz'], 'Paris', 0],
    ['icontains-any', ['PARIS', 'zz'], 'paris', 1],
    ['icontains-all', ['PA', 'RIS'], 'paris', 1],
    ['icontains-all', ['PA', 'zz'], 'paris', 0],
    ['starts-with', ['The'], '  The end', 1],
    ['ends-with', ['end.'], 'The end.  ', 1],
    ['ends-with', ['end'], 'The end.', 0],
  ] as [TextCheck, string[], string, number][])('%s %j on %j → %d', (c, values, out, want) => {
    expect(score(check(c, values), out)).toBe(want);
  });

  test('regex with flags', () => {
    expect(score(check('regex', ['^total: \\d+$'], { flags: 'm' }), 'x\ntotal: 42')).toBe(1);
    expect(score(check('regex', ['^total: \\d+$']), 'x\ntotal: 42')).toBe(0);
  });

  test('is-json, and against a JSON Schema (ajv loaded first)', async () => {
    expect(score(check('is-json', []), '{"a": 1}')).toBe(1);
    expect(score(check('is-json', []), 'not json')).toBe(0);
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    await prepareTextAssertion(check('is-json', [], { schema }));
    expect(score(check('is-json', [], { schema }), '{"name": "x"}')).toBe(1);
    const miss = scoreTextAssertion(check('is-json', [], { schema }), '{"name": 3}');
    expect(miss.score).toBe(0);
    expect(miss.misses[0]).toMatch(/does not match the schema: \/name must be string/);
  });

  test('a JSON Schema pattern runs in linear time; a refused one throws, never passes', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^(a|a)+$' } } };
    await prepareTextAssertion(check('is-json', [], { schema }));
    const started = Date.now();
    const miss = scoreTextAssertion(
      check('is-json', [], { schema }),
      JSON.stringify({ id: `${'a'.repeat(40)}!` }),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(miss.verdict).toBe('fail');
    expect(score(check('is-json', [], { schema }), '{"id": "aaa"}')).toBe(1);
    const refused = { type: 'string', pattern: 'x(?=y)' };
    expect(() => scoreTextAssertion(check('is-json', [], { schema: refused }), '"xy"')).toThrow(/lookahead/);
  });

  test('a regex that backtracks in JavaScript answers at once', () => {
    const started = Date.now();
    expect(score(check('regex', ['^(a|a)+$']), `${'a'.repeat(40)}!`)).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('uniqueItems against a long array is not checked (n² comparisons): it throws, never passes', async () => {
    const schema = { type: 'array', uniqueItems: true };
    await prepareTextAssertion(check('is-json', [], { schema }));
    expect(score(check('is-json', [], { schema }), '[{"a":1},{"a":2}]')).toBe(1);
    const long = JSON.stringify(Array.from({ length: 2001 }, (_, i) => ({ i })));
    expect(() => scoreTextAssertion(check('is-json', [], { schema }), long)).toThrow(
      /uniqueItems.*2001 items/,
    );
  });
});
