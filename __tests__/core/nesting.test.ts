import { MAX_NESTING_DEPTH, tooDeepOffset, tooDeepPath } from '../../src/core/nesting.js';

const nested = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

test('values up to the limit pass; one level more is reported with its path, without recursion', () => {
  expect(tooDeepPath(nested(MAX_NESTING_DEPTH))).toBeNull();
  const path = tooDeepPath(nested(MAX_NESTING_DEPTH + 1));
  expect(path).toHaveLength(MAX_NESTING_DEPTH);
  expect(tooDeepPath(nested(1_000_000))).toHaveLength(MAX_NESTING_DEPTH);
});

test('shared (aliased) values are measured once, and cycles end', () => {
  const shared = { a: [1, 2] };
  expect(tooDeepPath({ x: shared, y: shared, z: [shared, shared] })).toBeNull();
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  expect(tooDeepPath(cyclic)).toBeNull();
});

test('JSON text: the offset of the bracket that goes one level too deep; brackets in strings do not count', () => {
  const ok = `{"a": "${'['.repeat(500)}", "b": ${'['.repeat(99)}${']'.repeat(99)}}`;
  expect(tooDeepOffset(ok)).toBe(-1);
  const deep = `{"a": ${'['.repeat(100)}${']'.repeat(100)}}`;
  expect(tooDeepOffset(deep)).toBe(6 + 99);
  expect(tooDeepOffset('"\\"[[[" ' + '['.repeat(101))).toBe(8 + 100);
});
