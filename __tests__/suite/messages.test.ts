import {
  messageAsWritten,
  renderQuestion,
  renderQuestionOutline,
  renderReferenceAnswer,
  renderUserQuestion,
  textMessage,
} from '../../src/suite/messages.js';
import { type Message } from '../../src/suite/types.js';

// Written from AgentV v2.6.1's prompt builder (formatting/prompt-builder.ts): role markers when
// the input is a conversation (an assistant or tool turn, or more than one turn with content).
describe('renderQuestion', () => {
  test('one turn is its content alone', () => {
    expect(renderQuestion([textMessage('user', 'What is 2+2?')])).toBe('What is 2+2?');
  });

  test('a system and a user turn: both, each with its role marker', () => {
    expect(
      renderQuestion([textMessage('system', 'You are terse.'), textMessage('user', 'What is 2+2?')]),
    ).toBe('@[System]:\nYou are terse.\n\n@[User]:\nWhat is 2+2?');
  });

  test('an assistant turn makes a conversation even with one user turn; empty turns are left out', () => {
    const empty: Message = { role: 'user', parts: [] };
    expect(renderQuestion([textMessage('assistant', 'Hello'), empty])).toBe('@[Assistant]:\nHello');
    expect(
      renderQuestion([
        textMessage('system', 'Be brief.'),
        textMessage('user', 'Hi'),
        textMessage('assistant', 'Hello'),
        textMessage('user', 'And 2+2?'),
      ]),
    ).toBe('@[System]:\nBe brief.\n\n@[User]:\nHi\n\n@[Assistant]:\nHello\n\n@[User]:\nAnd 2+2?');
  });
});

describe('the question for code judges and for generate rubrics', () => {
  const file = { path: 'docs/spec.md', absPath: '/w/docs/spec.md', text: 'SPEC BODY\n', guideline: false };
  const conversation: Message[] = [
    textMessage('system', 'You are terse.'),
    {
      role: 'user',
      parts: [
        { type: 'text', text: 'Summarise this:' },
        { type: 'file', file },
      ],
    },
  ];

  test("a code judge's question: the user turns' content, files included, no role markers", () => {
    expect(renderUserQuestion(conversation)).toBe(
      'Summarise this:\n\n<file path="docs/spec.md">\nSPEC BODY\n</file>',
    );
  });

  test('generate rubrics: every turn, files by name only', () => {
    expect(renderQuestionOutline(conversation)).toBe(
      'You are terse.\n\nSummarise this:\n<file docs/spec.md>',
    );
  });
});

describe('renderReferenceAnswer', () => {
  test('the last assistant turn; a turn with only tool calls gives its calls', () => {
    const tools: Message = { role: 'assistant', parts: [], toolCalls: [{ tool: 'Read' }] };
    expect(renderReferenceAnswer([textMessage('assistant', 'first'), textMessage('assistant', 'last')])).toBe(
      'last',
    );
    expect(JSON.parse(renderReferenceAnswer([tools]))).toEqual([{ tool: 'Read' }]);
    expect(renderReferenceAnswer([])).toBe('');
  });
});

describe('messageAsWritten', () => {
  test('structured content as written, tool calls kept, text as text', () => {
    const structured: Message = { ...textMessage('assistant', '{"a": 1}'), structured: { a: 1 } };
    expect(messageAsWritten(structured)).toEqual({ role: 'assistant', content: { a: 1 } });
    const tools: Message = { role: 'assistant', parts: [], toolCalls: [{ tool: 'Read' }] };
    expect(messageAsWritten(tools)).toEqual({ role: 'assistant', tool_calls: [{ tool: 'Read' }] });
    expect(messageAsWritten(textMessage('user', 'hi'))).toEqual({ role: 'user', content: 'hi' });
  });
});
