import { schemaPatternProblem } from '../../src/suite/schema-patterns.js';

test('a refused pattern or patternProperties key is found with its path', () => {
  expect(
    schemaPatternProblem({ type: 'object', properties: { id: { type: 'string', pattern: '^(?=x)' } } }),
  ).toEqual({ at: ['properties', 'id', 'pattern'], message: expect.stringMatching(/lookahead/) });
  expect(schemaPatternProblem({ patternProperties: { '(a)\\1': {} } })).toMatchObject({
    at: ['patternProperties', '(a)\\1'],
  });
  expect(schemaPatternProblem({ anyOf: [{}, { pattern: '(?<!a)b' }] })).toMatchObject({
    at: ['anyOf', 1, 'pattern'],
  });
});

test('patterns RE2 runs pass, and a `pattern` key inside data is not a pattern', () => {
  expect(schemaPatternProblem({ properties: { v: { pattern: '^(a|a)+$' } } })).toBeNull();
  expect(schemaPatternProblem({ const: { pattern: '(?=x)' }, enum: [{ pattern: '(?=x)' }] })).toBeNull();
  expect(schemaPatternProblem({ properties: { pattern: { type: 'string' } } })).toBeNull();
});
