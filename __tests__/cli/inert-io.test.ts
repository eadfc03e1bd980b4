import { inertIO, inertOutput } from '../../src/cli/inert-io.js';
import { escapeRunnerCommands } from '../../src/report/results-file.js';

test('a line a runner would obey is broken with an invisible joiner; everything else is left as written', () => {
  expect(inertOutput('::error title=x::all checks passed\n  ::warning::y\nok ##[error]z\n')).toBe(
    ':\u200d:error title=x::all checks passed\n  :\u200d:warning::y\nok #\u200d#[error]z\n',
  );
  // The runner trims U+0085 (NEL) before it looks for `::`, which JavaScript's \s does not match.
  expect(inertOutput('\u0085::error::x')).toBe('\u0085:\u200d:error::x');
  const plain = '### rubric-eval\n| a | b |\nscore 0.88: fine\n';
  expect(inertOutput(plain)).toBe(plain);
});

test("the CLI's streams keep isTTY and `once` (the JSON writer waits on drain)", () => {
  let written = '';
  const raw = {
    write: (s: string) => ((written += s), true),
    isTTY: true,
    once: (_e: string, fn: () => void) => fn(),
  };
  const io = inertIO({ argv: [], env: {}, cwd: '.', stdout: raw, stderr: raw });
  io.stdout.write('::x\n');
  expect(written).toBe(':\u200d:x\n');
  expect(io.stdout.isTTY).toBe(true);
  let drained = false;
  (io.stdout as typeof raw).once('drain', () => (drained = true));
  expect(drained).toBe(true);
});

test('JSON the CLI prints writes `##[` as an escape: the same value, no line a runner obeys', () => {
  const value = { id: 'x ##[error]y', nested: ['\\##[z'] };
  const text = escapeRunnerCommands(JSON.stringify(value));
  expect(text).not.toContain('##[');
  expect(JSON.parse(text)).toEqual(value);
  expect(inertOutput(text)).toBe(text);
});
