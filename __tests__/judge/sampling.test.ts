import {
  formatVotes,
  lowerMedian,
  majority,
  maxSamples,
  parseVotes,
  sampleOrder,
} from '../../src/judge/sampling.js';

test('majority: satisfied when most samples say so; a tie is not satisfied', () => {
  expect(majority([true])).toBe(true);
  expect(majority([false])).toBe(false);
  expect(majority([true, false])).toBe(false);
  expect(majority([true, true, false])).toBe(true);
  expect(majority([true, false, false])).toBe(false);
  expect(majority([true, true, false, false])).toBe(false);
  expect(majority([true, true, true, false])).toBe(true);
  expect(majority([true, true, true, false, false])).toBe(true);
});

test('lowerMedian: the median, the lower middle value for an even count', () => {
  expect(lowerMedian([7])).toBe(7);
  expect(lowerMedian([8, 6])).toBe(6);
  expect(lowerMedian([9, 2, 5])).toBe(5);
  expect(lowerMedian([10, 4, 8, 6])).toBe(6);
  expect(lowerMedian([0.9, 0.5, 0.7, 0.6, 1])).toBe(0.7);
  expect(() => lowerMedian([])).toThrow(/no values/);
});

test('votes read and write as satisfied/samples', () => {
  expect(formatVotes([true, false, true])).toBe('2/3');
  expect(parseVotes('2/3')).toEqual({ yes: 2, total: 3 });
  expect(parseVotes('4/3')).toBeNull();
  expect(parseVotes('x')).toBeNull();
  expect(maxSamples('auto')).toBe(7);
  expect(maxSamples(7)).toBe(7);
});

test('item order: sample 0 as written; later samples shuffled, deterministic per seed, a permutation, never the written order', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];
  expect(sampleOrder(items, 0)).toEqual(items);
  const orders = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => sampleOrder(items, i));
  for (const [k, order] of orders.entries()) {
    expect(sampleOrder(items, k + 1)).toEqual(order); // same seed, same order
    expect([...order].sort()).toEqual(items);
    expect(order).not.toEqual(items);
  }
  // The seeds give different orders, not one fixed alternative.
  expect(new Set(orders.map((o) => o.join(''))).size).toBeGreaterThan(4);
  // Two items: the only other order.
  expect(sampleOrder(['x', 'y'], 3)).toEqual(['y', 'x']);
  expect(sampleOrder(['x'], 3)).toEqual(['x']);
  expect(items).toEqual(['a', 'b', 'c', 'd', 'e']);
});
