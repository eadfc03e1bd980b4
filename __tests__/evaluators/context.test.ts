import { candidateFromTarget, caseContext } from '../../src/evaluators/context.js';
import { templatePrompt } from '../../src/judge/prompts.js';
import { type EvalCase } from '../../src/suite/types.js';
import { fixedAnswer } from '../../src/targets/providers.js';

const evalCase: EvalCase = {
  id: 'c1',
  suitePath: 'evals/s.yaml',
  pos: { line: 2, column: 5 },
  expectedOutcome: 'Names Paris',
  inputMessages: [{ role: 'user', parts: [{ type: 'text', text: 'Capital of France?' }] }],
  expectedMessages: [{ role: 'assistant', parts: [{ type: 'text', text: 'Paris.' }] }],
  conversationId: null,
  target: null,
  evaluators: [],
};
const answer = { text: 'Paris.', outputMessages: null, durationMs: 1, tokenUsage: null, costUsd: null };

test('the JSON texts a template may ask for are written when asked, once, as before', () => {
  const ctx = caseContext(evalCase, answer);
  expect(ctx.inputMessagesJson).toBe('[{"role":"user","content":"Capital of France?"}]');
  expect(ctx.expectedMessagesJson).toBe('[{"role":"assistant","content":"Paris."}]');
  expect(ctx.outputMessagesJson).toBe('[{"role":"assistant","content":"Paris."}]');
  expect(ctx.outputMessagesJson).toBe(ctx.outputMessagesJson);
  const prompt = templatePrompt(
    ctx,
    'In {{input_messages}} out {{output_messages}} want {{expected_messages}}',
  );
  const user = prompt.messages.at(-1)!.content;
  expect(user).toContain('In [{"role":"user","content":"Capital of France?"}] out <<<OUTPUT_MESSAGES');
  expect(user).toContain('[{"role":"assistant","content":"Paris."}]\n<<<END OUTPUT_MESSAGES');
  expect(user).toContain('want [{"role":"assistant","content":"Paris."}]');
});

test("code is given the object of an OpenAI tool-calling reply, and any other target's text", () => {
  const message = {
    role: 'assistant',
    content: 'Paris is the capital of France.',
    tool_calls: [{ id: '1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
  };
  const given = { ...fixedAnswer('Paris is the capital of France.'), outputMessages: [message] };
  // A CLI target (or answers file) whose one message called tools: a trace, code reads its text.
  expect(candidateFromTarget(given).value).toBeUndefined();
  expect(candidateFromTarget({ ...given, toolOutput: true }).value).toBe(message);
});
