import { parseInputs } from '../../src/config/config.js';
import { parseShard } from '../../src/config/shard-spec.js';
import { inShard, planHash, shardSize } from '../../src/pipeline/shard.js';

describe('shard: i/n', () => {
  test.each([
    ['1/1', { index: 1, total: 1 }],
    ['2/4', { index: 2, total: 4 }],
    [' 3 / 3 ', { index: 3, total: 3 }],
    ['256/256', { index: 256, total: 256 }],
  ])('%s is accepted', (value, spec) => {
    expect(parseShard(value)).toEqual(spec);
  });

  test.each(['0/3', '4/3', 'a/b', '3', '1/257', '-1/3', '1.5/3', '1/3/3', ''])(
    '%j fails naming the input and the accepted form',
    (value) => {
      expect(parseShard(value)).toEqual({
        error: `shard: must be i/n with 1 ≤ i ≤ n ≤ 256, e.g. 2/4 (got '${value}')`,
      });
    },
  );

  test('the action input is validated with the same message, and does not go with merge', () => {
    expect(parseInputs({ suites: 'x.yaml', shard: '4/3' })).toEqual({
      errors: ["shard: must be i/n with 1 ≤ i ≤ n ≤ 256, e.g. 2/4 (got '4/3')"],
    });
    const [long] = (
      parseInputs({ suites: 'x.yaml', shard: '9'.repeat(4000), 'fail-on': 'x'.repeat(4000) }) as {
        errors: string[];
      }
    ).errors;
    expect(long!.length).toBeLessThan(300);
    expect(long).toMatch(/more characters\)'\)$/);
    expect(parseInputs({ merge: 'shards/*.json' })).toMatchObject({ inputs: { merge: 'shards/*.json' } });
    expect(parseInputs({ merge: 'a.json', shard: '1/2' })).toEqual({
      errors: [expect.stringMatching(/^merge: a merge runs nothing, so it takes no `shard`/)],
    });
  });

  test('round-robin deals every case to exactly one shard, in shares that add up', () => {
    for (const planned of [0, 1, 2, 7, 12, 1000])
      for (const total of [1, 2, 3, 4, 7, 16]) {
        const shares = Array.from({ length: total }, (_, i) => shardSize(planned, { index: i + 1, total }));
        expect(shares.reduce((a, b) => a + b, 0)).toBe(planned);
        for (let k = 0; k < planned; k++) {
          const owners = shares.map((_, i) => inShard(k, { index: i + 1, total })).filter(Boolean);
          expect(owners).toHaveLength(1);
        }
      }
  });

  test('the plan hash depends on the order and on every field', () => {
    const a = { suite: 'a.yaml', id: 'x', definition_hash: '0123456789abcdef' };
    const b = { suite: 'a.yaml', id: 'y', definition_hash: 'fedcba9876543210' };
    expect(planHash([a, b])).toMatch(/^[0-9a-f]{16}$/);
    expect(planHash([a, b])).toBe(planHash([{ ...a }, { ...b }]));
    expect(planHash([b, a])).not.toBe(planHash([a, b]));
    expect(planHash([a, { ...b, definition_hash: '0000000000000000' }])).not.toBe(planHash([a, b]));
    expect(planHash([a, { ...b, suite: 'b.yaml' }])).not.toBe(planHash([a, b]));
  });
});
