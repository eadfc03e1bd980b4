import { Redactor } from '../../src/exec/redact.js';
import { judgedAnswer, MAX_ANSWER_CHARS } from '../../src/evaluators/judged-answer.js';

const redactor = new Redactor(['sk-secret-123456']);
/** A target's answer with no timing, tokens or cost: what the tests below vary is the text. */
const raw = (text: string, outputMessages: unknown[] | null) => ({
  text,
  outputMessages,
  durationMs: 12,
  tokenUsage: null,
  costUsd: null,
});
const rest = { durationMs: 12, tokenUsage: null, costUsd: null };

test('a short answer is redacted and passed whole, with no cut', () => {
  expect(judgedAnswer(raw('key sk-secret-123456 here', null), redactor)).toEqual({
    answer: { text: 'key *** here', outputMessages: null, ...rest },
    cut: null,
  });
});

test('a long answer keeps its head and tail, says the cut, and is redacted before cutting', () => {
  const text = `${'a'.repeat(74_995)}sk-secret-123456${'b'.repeat(200_000)}`;
  const { answer, cut } = judgedAnswer(raw(text, null), redactor);
  expect(cut).toEqual({ original_chars: text.length - 13, kept_chars: MAX_ANSWER_CHARS });
  expect(answer.text.startsWith(`${'a'.repeat(74_995)}***`)).toBe(true);
  expect(answer.text).toContain('characters cut by rubric-eval');
  expect(answer.text.endsWith('b'.repeat(25_000))).toBe(true);
  expect(answer.text).not.toContain('sk-secret');
});

test('output messages too deep or too large are dropped (the text alone is judged); others are redacted', () => {
  let deep: unknown = 'x';
  for (let i = 0; i < 10_000; i++) deep = [deep];
  const dropped = judgedAnswer(raw('ok', [deep]), redactor);
  expect(dropped).toEqual({
    answer: { text: 'ok', outputMessages: null, ...rest },
    cut: { original_chars: 2, kept_chars: 2, output_messages_dropped: true },
  });
  const big = judgedAnswer(raw('ok', [{ content: 'x'.repeat(MAX_ANSWER_CHARS) }]), redactor);
  expect(big.cut?.output_messages_dropped).toBe(true);
  const kept = judgedAnswer(raw('ok', [{ content: 'sk-secret-123456' }]), redactor);
  expect(kept).toEqual({ answer: { text: 'ok', outputMessages: [{ content: '***' }], ...rest }, cut: null });
});
