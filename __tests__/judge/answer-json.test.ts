import { parseJsonAnswer, repeatedKey } from '../../src/judge/answer-json.js';
import { validateFreeform, validateScoreRange } from '../../src/judge/schemas.js';

const verdict = (score: number) => JSON.stringify({ reasoning: 'r', hits: [], misses: [], score });

describe('parseJsonAnswer reads exactly one object', () => {
  test('the whole reply when it is JSON (structured outputs)', () => {
    expect(parseJsonAnswer(` ${verdict(0.5)} \n`)).toEqual({ ok: true, value: JSON.parse(verdict(0.5)) });
  });

  test('the one verdict in prose or a code fence (text mode)', () => {
    for (const reply of [
      `Sure.\n\`\`\`json\n${verdict(0.7)}\n\`\`\`\nDone.`,
      `My verdict: ${verdict(0.7)} — that is all.`,
      `Note {this is not JSON} then ${verdict(0.7)}`,
    ])
      expect(parseJsonAnswer(reply)).toEqual({ ok: true, value: JSON.parse(verdict(0.7)) });
  });

  test('objects without verdict keys do not count against the one verdict', () => {
    const r = parseJsonAnswer(`The answer cites {"source": "docs"}. Verdict: ${verdict(0.2)}`);
    expect(r).toEqual({ ok: true, value: JSON.parse(verdict(0.2)) });
  });

  test.each([
    ['two free-form verdicts', `Quoted: ${verdict(1)}\nMine: ${verdict(0.1)}`],
    ['a checklist and a markdown verdict', `{"checks": []} and {"verdict": "accept", "checks": []}`],
  ])('more than one verdict-shaped object is invalid: %s', (_n, reply) => {
    const r = parseJsonAnswer(reply);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/2 verdict-shaped JSON objects/);
  });

  test.each([
    ['top level', '{"score": 0, "score": 1}', 'score'],
    ['nested', '{"checks": [{"id": "a", "satisfied": false, "satisfied": true}]}', 'satisfied'],
    ['spelled with an escape', '{"score": 0, "\\u0073core": 1}', 'score'],
    ['both spelled with escapes', '{"a\\"b": 0, "a\\u0022b": 1}', 'a"b'],
    ['in a fenced block', 'x\n```json\n{"score": 0, "score": 1}\n```', 'score'],
  ])('a key given twice in one object is invalid (%s)', (_n, reply, key) => {
    const r = parseJsonAnswer(reply);
    expect(r).toEqual({ ok: false, error: `key "${key}" appears twice in one object; give each key once` });
  });

  test('the same key in different objects is fine', () => {
    expect(
      parseJsonAnswer('{"checks": [{"id": "a", "satisfied": true}, {"id": "b", "satisfied": false}]}').ok,
    ).toBe(true);
    expect(repeatedKey('{"a": {"a": 1}, "b": ["a", {"a": 2}]}')).toBeNull();
  });

  test.each([
    ['', /empty/],
    ['no json here', /not valid JSON/],
    ['[1, 2]', /JSON but not an object/],
  ])('%j is invalid', (reply, error) => {
    const r = parseJsonAnswer(reply);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(error);
  });

  test('hostile replies cost linear time and no stack: deep nesting, endless braces', () => {
    const deep = `{"score": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(parseJsonAnswer(deep).ok).toBe(true);
    expect(repeatedKey(deep)).toBeNull();
    const wide = (n: number, extra = '') =>
      `{${Array.from({ length: n }, (_, i) => `"k${i}": 0`).join(', ')}${extra}}`;
    expect(repeatedKey(wide(300_000))).toBeNull();
    expect(repeatedKey(wide(300_000, ', "k123456": 1'))).toBe('k123456');
    expect(repeatedKey(wide(10, ', "k3": 1'))).toBe('k3');
    const braces = `${'{'.repeat(300_000)} ${verdict(0.4)}`;
    expect(parseJsonAnswer(braces).ok).toBe(false);
  });
});

describe('answer values: out of scale is invalid, never clamped', () => {
  test.each([7, 1.01, -0.5, Infinity])('a free-form score of %p', (score) => {
    const r = validateFreeform({ score, hits: [], misses: [] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/score/);
  });

  test.each([0, 0.5, 1])('a free-form score of %p is taken as given', (score) => {
    expect(validateFreeform({ score })).toMatchObject({ ok: true, value: { score } });
  });

  test.each([10.5, 11, -1])('a range score of %p', (score) => {
    expect(validateScoreRange({ checks: [{ id: 'a', score }] }, ['a']).ok).toBe(false);
  });

  test('hits and misses keep their first 4 entries (AgentV)', () => {
    const six = ['1', '2', '3', '4', '5', '6'];
    expect(validateFreeform({ score: 0.5, hits: six, misses: six.slice(0, 2) })).toMatchObject({
      ok: true,
      value: { hits: ['1', '2', '3', '4'], misses: ['1', '2'] },
    });
  });
});

test('an id answered twice: the same way is kept once (warned); differently is invalid', () => {
  const same = validateScoreRange(
    {
      checks: [
        { id: 'a', score: 7 },
        { id: 'a', score: 7 },
      ],
    },
    ['a'],
  );
  expect(same).toMatchObject({
    ok: true,
    warnings: ["judge answered id 'a' twice, the same way; one answer is kept"],
  });
  const split = validateScoreRange(
    {
      checks: [
        { id: 'a', score: 10 },
        { id: 'a', score: 2 },
      ],
    },
    ['a'],
  );
  expect(split).toEqual({
    ok: false,
    error: "id 'a' is answered twice with different verdicts: answer every id exactly once",
  });
});
