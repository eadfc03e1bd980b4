import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ECHO_LIMIT, excerpt, formatDiagnostic } from '../../src/core/diagnostics.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { Workspace } from '../../src/core/workspace.js';
import { tmpDir } from '../helpers/judge.js';

describe('excerpt: long values are cut in messages with a marker', () => {
  test('a short value is left whole', () => {
    expect(excerpt('npm test')).toBe('npm test');
    expect(excerpt('x'.repeat(ECHO_LIMIT))).toBe('x'.repeat(ECHO_LIMIT));
  });
  test('a long value keeps its start and says how much was left out', () => {
    expect(excerpt('y'.repeat(50_000))).toBe(
      `${'y'.repeat(ECHO_LIMIT)}… (${50_000 - ECHO_LIMIT} more characters)`,
    );
    expect(excerpt('abcdef', 3)).toBe('abc… (3 more characters)');
  });
  test('never cuts a character in half', () => {
    const cut = excerpt(`${'a'.repeat(ECHO_LIMIT - 1)}😀😀`);
    expect(cut.startsWith(`${'a'.repeat(ECHO_LIMIT - 1)}… (`)).toBe(true);
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

test('a 50 KB case id, key or file name in a suite gives short messages', () => {
  const dir = tmpDir('re-echo-');
  const long = 'z'.repeat(50_000);
  writeFileSync(
    path.join(dir, 's.yaml'),
    [
      'evalcases:',
      `  - id: ${long}`,
      '    expected_outcome: x',
      '    input: hi',
      `    ${long}: 1`,
      `  - id: ${long}`,
      '    expected_outcome: x',
      '    input:',
      '      - role: user',
      '        content:',
      '          - type: file',
      `            value: ${long}.md`,
    ].join('\n'),
  );
  const { diagnostics } = loadSuiteFile(path.join(dir, 's.yaml'), new Workspace(dir));
  const lines = diagnostics.map(formatDiagnostic);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const line of lines) {
    expect(line.length).toBeLessThan(1500);
    expect(line).toContain('more characters)');
  }
});
