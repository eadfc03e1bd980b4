import { dropShadowedAliases, messagesShape } from '../../../src/suite/v2/shorthand.js';

// Written from AgentV v2.6.1's shorthand expansion (loaders/shorthand-expansion.ts and its tests).
describe('messagesShape', () => {
  test('a string is one message of the key’s default role', () => {
    expect(messagesShape('input', 'What is 2+2?')).toEqual({ kind: 'text', text: 'What is 2+2?' });
    expect(messagesShape('expected_output', 'The answer is 4')).toEqual({
      kind: 'text',
      text: 'The answer is 4',
    });
  });

  test('a list of messages passes through, each with its position', () => {
    const messages = [
      { role: 'system', content: 'You are a calculator' },
      { role: 'user', content: 'What is 2+2?' },
    ];
    expect(messagesShape('input', messages)).toEqual({
      kind: 'messages',
      items: [
        { value: messages[0], at: [0] },
        { value: messages[1], at: [1] },
      ],
    });
  });

  test('expected_output: an object without a role is structured content; with a role it is one message', () => {
    const structured = { riskLevel: 'High', confidence: 0.95 };
    expect(messagesShape('expected_output', structured)).toEqual({ kind: 'structured', content: structured });
    const message = { role: 'assistant', content: 'hi' };
    expect(messagesShape('expected_output', message)).toEqual({
      kind: 'messages',
      items: [{ value: message, at: [] }],
    });
  });

  test('expected_output: a list is messages when its first item is one, else structured content', () => {
    const list = [{ item: 1 }, { item: 2 }];
    expect(messagesShape('expected_output', list)).toEqual({ kind: 'structured', content: list });
    expect(messagesShape('expected_output', ['a', 'b'])).toEqual({ kind: 'structured', content: ['a', 'b'] });
    const withTools = [
      { role: 'assistant', tool_calls: [{ tool: 'Read', input: { file_path: 'config.json' } }] },
    ];
    expect(messagesShape('expected_output', withTools)).toEqual({
      kind: 'messages',
      items: [{ value: withTools[0], at: [0] }],
    });
  });

  test('the canonical keys and input are always message lists (the schema refuses anything else)', () => {
    expect(messagesShape('expected_messages', [{ item: 1 }])).toMatchObject({ kind: 'messages' });
    expect(messagesShape('input', [])).toEqual({ kind: 'messages', items: [] });
  });
});

describe('dropShadowedAliases', () => {
  test('the canonical key wins: the alias is dropped and reported', () => {
    const raw = {
      id: 'x',
      input_messages: [{ role: 'user', content: 'Canonical' }],
      input: 'Should be ignored',
      expected_messages: [{ role: 'assistant', content: 'Canonical' }],
      expected_output: 'Should be ignored',
      expected_outcome: 'Canonical outcome',
      outcome: 'Ignored outcome',
    };
    const { value, shadowed } = dropShadowedAliases(raw);
    expect(value).toEqual({
      id: 'x',
      input_messages: raw.input_messages,
      expected_messages: raw.expected_messages,
      expected_outcome: 'Canonical outcome',
    });
    expect(shadowed).toEqual([
      { alias: 'input', canonical: 'input_messages' },
      { alias: 'expected_output', canonical: 'expected_messages' },
      { alias: 'outcome', canonical: 'expected_outcome' },
    ]);
    expect(raw.input).toBe('Should be ignored');
  });

  test('an alias alone is kept; two aliases of one key are left for the loader to refuse', () => {
    const raw = { input: 'From alias', outcome: 'a', criteria: 'b' };
    expect(dropShadowedAliases(raw)).toEqual({ value: raw, shadowed: [] });
  });
});
