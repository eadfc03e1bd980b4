import { caseContext } from '../../src/evaluators/context.js';
import { templatePrompt } from '../../src/judge/prompts.js';
import { type EvalCase } from '../../src/suite/types.js';

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
