import { MAX_SCHEMA_NODES, schemaExpansionProblem } from '../../src/suite/schema-expansion.js';

/** A schema's size with each `$ref` expanded, bounded at load so no check can run for minutes. */

/** The reviewer's schema: each definition is allOf two `$ref`s to the next (2^depth expansions). */
function doubling(depth: number) {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++)
    defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs[`d${depth}`] = { type: 'string' };
  return { type: 'object', $defs: defs, properties: { city: { $ref: '#/$defs/d0' } } };
}

test('definitions that each use the next twice are refused once their expansion passes the bound', () => {
  expect(schemaExpansionProblem(doubling(8))).toBeNull();
  const p = schemaExpansionProblem(doubling(34), ['parameters']);
  expect(p?.at).toEqual(['parameters']);
  expect(p?.message).toContain(`more than ${MAX_SCHEMA_NODES} parts`);
});

test('ordinary schemas pass: definitions used a few times, a tree, a linked list, any JSON value', () => {
  const address = { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } };
  const order = {
    type: 'object',
    $defs: { address },
    properties: { billing: { $ref: '#/$defs/address' }, shipping: { $ref: '#/$defs/address' } },
  };
  expect(schemaExpansionProblem(order)).toBeNull();
  const tree = {
    type: 'object',
    properties: { value: { type: 'number' }, left: { $ref: '#' }, right: { $ref: '#' } },
  };
  expect(schemaExpansionProblem(tree)).toBeNull();
  const list = {
    definitions: { node: { properties: { next: { $ref: '#/definitions/node' } } } },
    $ref: '#/definitions/node',
  };
  expect(schemaExpansionProblem(list)).toBeNull();
  const json = {
    anyOf: [
      { type: ['string', 'number', 'boolean', 'null'] },
      { type: 'array', items: { $ref: '#' } },
      { type: 'object', additionalProperties: { $ref: '#' } },
    ],
  };
  expect(schemaExpansionProblem(json)).toBeNull();
  // Anchors and ids are followed too (a way around a pointer-only count otherwise).
  const anchored = { $id: 'https://x.test/s', $defs: { a: { $anchor: 'a', type: 'string' } }, $ref: 's#a' };
  expect(schemaExpansionProblem(anchored)).toBeNull();
});

test('a recursion reached twice at one place of the value doubles per level of the answer: refused', () => {
  const p = schemaExpansionProblem({
    type: 'object',
    properties: { x: { anyOf: [{ $ref: '#' }, { $ref: '#' }] } },
  });
  expect(p).toEqual({
    at: ['properties', 'x', 'anyOf', 1, '$ref'],
    message: expect.stringContaining('recursion reached twice at one place') as string,
  });
});

test('anchors cannot hide the doubling, and a `$ref` to nothing here is said', () => {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++)
    defs[`d${i}`] = { $anchor: `d${i}`, allOf: [{ $ref: `#d${i + 1}` }, { $ref: `#d${i + 1}` }] };
  defs.d20 = { $anchor: 'd20', type: 'string' };
  expect(schemaExpansionProblem({ $defs: defs, $ref: '#d0' })?.message).toContain('more than');
  expect(schemaExpansionProblem({ properties: { a: { $ref: '#/$defs/missing' } } })).toEqual({
    at: ['properties', 'a', '$ref'],
    message: "`$ref` '#/$defs/missing' names nothing in this schema",
  });
  expect(schemaExpansionProblem({ $ref: 'http://json-schema.org/draft-07/schema#' })).toBeNull();
});

test('a malformed escape in a `$ref` is said, not thrown', () => {
  expect(schemaExpansionProblem({ $ref: '#/%E0%A4%A' })?.message).toContain('names nothing');
});

test('a recursion reached through a definition used twice is found at its second use too (the size is not cached past it)', () => {
  // b uses a twice; a recurses into b at its items: each level of nesting doubles ajv's calls.
  const schema = {
    $ref: '#/definitions/b',
    definitions: {
      b: { allOf: [{ $ref: '#/definitions/a' }, { $ref: '#/definitions/a' }] },
      a: { items: { $ref: '#/definitions/b' } },
    },
  };
  expect(schemaExpansionProblem(schema)?.message).toContain('reached twice at one place of the value');
});

test('keywords that see the same element are one place: `items` and `contains` recursing doubles too', () => {
  expect(schemaExpansionProblem({ items: { $ref: '#' }, contains: { $ref: '#' } })?.message).toContain(
    'reached twice at one place of the value',
  );
  // One of them alone is a plain nested list.
  expect(schemaExpansionProblem({ items: { $ref: '#' } })).toBeNull();
  expect(schemaExpansionProblem({ type: 'array', contains: { $ref: '#' } })).toBeNull();
});
