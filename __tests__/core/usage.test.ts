import { withThousands } from '../../src/core/usage.js';

test('thousands are grouped as en-US groups them', () => {
  const values = [0, 7, 99, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 1_234_567, 100_000_000, 2 ** 31];
  for (let n = 1; n < 1e12; n = n * 7 + 3) values.push(n);
  for (const n of values) expect([n, withThousands(n)]).toEqual([n, n.toLocaleString('en-US')]);
});
