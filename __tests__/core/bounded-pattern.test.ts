import {
  boundedPatternProblem,
  boundedRegExpEngine,
  compileBoundedPattern,
} from '../../src/core/bounded-pattern.js';

describe('bounded patterns (RE2, linear in the text)', () => {
  test('a pattern that backtracks for minutes in JavaScript answers at once', () => {
    const text = `${'a'.repeat(5000)}!`;
    const started = Date.now();
    expect(compileBoundedPattern('^(a|a)+$').test(text)).toBe(false);
    expect(compileBoundedPattern('(x+x+)+y').test('x'.repeat(100_000))).toBe(false);
    expect(compileBoundedPattern('^(a|a)+$').test('aaaa')).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test.each([
    ['"status"\\s*:\\s*"ok"', '', '{"status": "ok"}', true],
    ['^total: \\d+$', 'm', 'x\ntotal: 42', true],
    ['^total: \\d+$', '', 'x\ntotal: 42', false],
    ['PARIS', 'i', 'in paris', true],
    ['a.b', 's', 'a\nb', true],
    ['a.b', '', 'a\nb', false],
    ['(?<year>\\d{4})', '', 'in 2024', true],
    ['\\u0041\\/', 'u', 'A/', true],
    ['[^]x', '', '\nx', true],
    ['\\p{Lu}', 'u', 'É', true],
    ['ab', 'y', 'xab', false],
    ['ab', 'y', 'abx', true],
    ['ab', 'g', 'xab', true],
  ])('/%s/%s on %j is %s, as in JavaScript', (source, flags, text, want) => {
    expect(compileBoundedPattern(source, flags).test(text)).toBe(want);
    expect(new RegExp(source, flags).test(text)).toBe(want);
  });

  test.each([
    ['a(?=b)', /lookahead/],
    ['a(?!b)', /negative lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /negative lookbehind/],
    ['(a)\\1', /backreference \(`\\1`\)/],
    ['(?<x>a)\\k<x>', /named backreference/],
  ])('%s is refused, naming the construct', (source, why) => {
    const problem = boundedPatternProblem(source);
    expect(problem).toMatch(why);
    expect(problem).toContain('linear-time engine (RE2)');
    expect(() => compileBoundedPattern(source)).toThrow(why);
  });

  test('inside a character class or escaped, the same characters are literal and run', () => {
    expect(compileBoundedPattern('[(?=]+').test('(?=')).toBe(true);
    expect(compileBoundedPattern('\\(\\?=x').test('(?=x')).toBe(true);
  });

  test('a pattern too large for its answer is not run: the size of both decides, before any work', () => {
    expect(boundedPatternProblem('[a-z]{1000}'.repeat(21))).toMatch(/automaton states; the limit is 20000/);
    const big = compileBoundedPattern('[a-z]{1000}');
    expect(big.test('a'.repeat(2000))).toBe(true);
    const started = Date.now();
    expect(() => big.test('a'.repeat(100_001))).toThrow(/exceeds the time budget/);
    expect(Date.now() - started).toBeLessThan(500);
  });

  test('the v flag is refused', () => {
    expect(boundedPatternProblem('[a]', 'v')).toMatch(/`v` flag/);
  });

  test('ajv gets a test() that runs on RE2, and a refused pattern throws while compiling', () => {
    expect(boundedRegExpEngine('^(a|a)+$', 'u').test(`${'a'.repeat(40)}!`)).toBe(false);
    expect(boundedRegExpEngine.code).toBeTruthy();
    expect(() => boundedRegExpEngine('x(?=y)', 'u')).toThrow(/lookahead/);
  });
});
