import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Redactor } from '../../src/exec/redact.js';
import { AdaptiveLimiter } from '../../src/exec/limiter.js';
import { type EvalCase } from '../../src/suite/types.js';
import { CliSettings, cliRunner, renderCommandTemplate } from '../../src/targets/providers.js';
import { tmpDir } from '../helpers/judge.js';

function evalCase(id: string, prompt: string): EvalCase {
  return {
    id,
    suitePath: 's.yaml',
    pos: { line: 1, column: 1 },
    expectedOutcome: '',
    inputMessages: [{ role: 'user', parts: [{ type: 'text', text: prompt }] }],
    expectedMessages: [],
    conversationId: null,
    target: null,
    evaluators: [],
  };
}

/** A real CLI target whose command keeps a copy of what it wrote, to compare bytes. */
function echoTarget(capture: string) {
  const settings = CliSettings.parse({
    command_template: `printf '%s' {PROMPT} > {OUTPUT_FILE} && cp {OUTPUT_FILE} "$CAPTURE"`,
  });
  return cliRunner('echo', settings, tmpDir('re-tpl-'), {
    limiter: new AdaptiveLimiter(2),
    redactor: new Redactor([]),
    childEnv: { PATH: process.env.PATH, CAPTURE: capture },
    modelTimeoutMs: 10_000,
    commandTimeoutMs: 10_000,
  });
}

const TRICKY = [
  "'",
  '"',
  '\\',
  '\n',
  '\r\n',
  '\t',
  '$',
  "$'",
  '$&',
  '$`',
  '$$',
  '$1',
  '$(echo pwned)',
  '${HOME}',
  '`id`',
  '{',
  '}',
  '{PROMPT}',
  '{EVAL_ID}',
  '{OUTPUT_FILE}',
  '{FILES}',
  '{ATTEMPT}',
  '{{ question }}',
  '%s',
  '%',
  '-n',
  'é',
  '日本語',
  '😀',
  '\u200b',
  ' ',
];

test('any prompt reaches a CLI target byte for byte (printf through the shell)', async () => {
  const capture = path.join(tmpDir('re-tpl-cap-'), 'got');
  const target = echoTarget(capture);
  const prompt = fc
    .array(
      fc.oneof(
        fc.constantFrom(...TRICKY),
        fc.string({ unit: 'grapheme', maxLength: 6 }).filter((s) => !s.includes('\0')),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(''));
  await fc.assert(
    fc.asyncProperty(prompt, async (p) => {
      await target.answer(evalCase('p4', p), 1);
      expect(readFileSync(capture)).toEqual(Buffer.from(p, 'utf8'));
    }),
    { numRuns: 150 },
  );
});

test('the issue’s two prompts arrive as written, and the answer is what the target wrote', async () => {
  const capture = path.join(tmpDir('re-tpl-cap-'), 'got');
  const target = echoTarget(capture);
  for (const p of ["price $' now", 'say {EVAL_ID} please']) {
    const answer = await target.answer(evalCase('p4', p), 1);
    expect(readFileSync(capture, 'utf8')).toBe(p);
    expect(answer.text).toBe(p);
  }
});

test('{FILES} formats each path with files_format in one pass too', () => {
  expect(
    renderCommandTemplate('run {FILES} {EVAL_ID}', {
      prompt: '',
      files: ["/tmp/a $' b", '/tmp/{path}'],
      filesFormat: '--file {path}',
      evalId: '{FILES}',
      attempt: 1,
      outputFile: '/o',
    }),
  ).toBe("run --file '/tmp/a $'\\'' b' --file '/tmp/{path}' '{FILES}'");
});
