import { parseBatchOutput, parseCliOutput } from '../../src/targets/cli-output.js';

test('output_messages: the candidate is the last assistant content (objects as JSON); metrics as reported', () => {
  const a = parseCliOutput(
    JSON.stringify({
      text: 'ignored when messages carry content',
      output_messages: [
        { role: 'assistant', tool_calls: [{ tool: 'search', input: { q: 'x' }, duration_ms: 12 }] },
        { role: 'assistant', content: { decision: 'CLEAR' } },
      ],
      token_usage: { input: 12, output: 8, cached: 3 },
      cost_usd: 0.0042,
      duration_ms: 3420,
    }),
  );
  expect(a).toMatchObject({
    text: '{"decision":"CLEAR"}',
    promptTokens: 12,
    completionTokens: 8,
    cachedTokens: 3,
    costUsd: 0.0042,
    durationMs: 3420,
  });
  expect(a.outputMessages).toHaveLength(2);
});

test('a negative cost or duration is discarded; JSON that is neither {text} nor {output_messages} is the answer as text', () => {
  expect(parseCliOutput('{"text": "hi", "cost_usd": -1, "duration_ms": -5}')).toMatchObject({
    text: 'hi',
    costUsd: null,
    durationMs: null,
  });
  const invoice = '{"invoice_number": "INV-1", "net_total": 10}';
  expect(parseCliOutput(invoice)).toMatchObject({ text: invoice, outputMessages: null });
});

test('batch JSONL: one record per id; a bad line or a repeated id fails the whole batch', () => {
  const records = parseBatchOutput(
    '{"id": "a", "text": "A", "duration_ms": 5}\n\n{"id": "b", "output_messages": [{"role": "assistant", "content": "B"}]}\n{"id": "c"}\n',
  );
  expect([...records.keys()]).toEqual(['a', 'b', 'c']);
  expect(records.get('a')).toMatchObject({ text: 'A', durationMs: 5 });
  expect(records.get('b')).toMatchObject({ text: 'B' });
  expect(records.get('c')).toMatchObject({ text: '', outputMessages: null });
  expect(() => parseBatchOutput('{"id": "a"}\nnot json\n')).toThrow(/^batch output line 2 is not JSON/);
  expect(() => parseBatchOutput('{"text": "no id"}')).toThrow('batch output line 1 has no string `id`');
  expect(() => parseBatchOutput('{"id": "a"}\n{"id": "a"}')).toThrow("batch output contains id 'a' twice");
  expect(() => parseBatchOutput('[1]')).toThrow('batch output line 1 must be a JSON object');
});
