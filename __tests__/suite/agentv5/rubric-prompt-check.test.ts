import { rubricPromptProblem } from '../../../src/suite/agentv5/rubric-prompt-check.js';

test('placeholders are found in one pass: unclosed `{{` by the thousand do not hold the load', () => {
  // A lazy /\{\{([\s\S]*?)\}\}/g rescans to the end from every `{{`: 300 KB of them held the
  // load for seconds (600 KB: 47 s), past any cancel. Read in one pass, they are plain text.
  const unclosed = '{{'.repeat(150_000);
  expect(rubricPromptProblem(`Grade {{output}} against {{rubric}} ${unclosed}`, 'llm-rubric')).toBeNull();
  expect(rubricPromptProblem(`Grade {{rubric}} ${unclosed}`, 'llm-rubric')).toMatch(
    /never names `\{\{output\}\}`/,
  );
  // Each `{{` pairs with the first `}}` after it, as the pattern did.
  expect(rubricPromptProblem('{{{output}}} {{rubric}}', 'llm-rubric')).toMatch(/uses `\{\{\{output\}\}`/);
});

test('a refused placeholder is echoed in brief', () => {
  const said = rubricPromptProblem(`Grade {{ output | ${'x'.repeat(5000)} }} {{rubric}}`, 'llm-rubric');
  expect(said).toMatch(/^`rubricPrompt` uses `\{\{ output \| x+/);
  expect(said!.length).toBeLessThan(400);
});
