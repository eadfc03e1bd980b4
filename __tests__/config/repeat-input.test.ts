import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromInputs, parseInputs } from '../../src/config/config.js';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { Workspace } from '../../src/core/workspace.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { MAX_REPEATS } from '../../src/core/repeat-setting.js';

const config = (raw: Record<string, string>) => {
  const parsed = parseInputs({ suites: 'evals/*.yaml', ...raw });
  if ('errors' in parsed) return parsed;
  return { config: configFromInputs(parsed.inputs, { workingDirectory: '.', resultsFile: 'r.json' }) };
};

describe('the repeat and min-case-pass-rate inputs', () => {
  test('unset: null (each suite decides, else 1), 0.8', () => {
    expect(config({})).toMatchObject({ config: { repeat: null, minCasePassRate: 0.8 } });
    expect(config({ repeat: '', 'min-case-pass-rate': '' })).toMatchObject({
      config: { repeat: null, minCasePassRate: 0.8 },
    });
  });

  test('a count 1..20 or auto (any case, trimmed)', () => {
    expect(config({ repeat: '7' })).toMatchObject({ config: { repeat: 7 } });
    expect(config({ repeat: ' AUTO ' })).toMatchObject({ config: { repeat: 'auto' } });
    expect(config({ 'min-case-pass-rate': '0.9' })).toMatchObject({ config: { minCasePassRate: 0.9 } });
  });

  test.each([
    ['0', "repeat: must be an integer from 1 to 20 or auto (got '0')"],
    ['21', "repeat: must be an integer from 1 to 20 or auto (got '21')"],
    ['2.5', "repeat: must be an integer from 1 to 20 or auto (got '2.5')"],
    ['often', "repeat: must be an integer from 1 to 20 or auto (got 'often')"],
  ])('repeat %p is refused by name', (value, message) => {
    expect(config({ repeat: value })).toEqual({ errors: [message] });
  });

  test('min-case-pass-rate outside 0.01..0.99 is refused by name', () => {
    expect(config({ 'min-case-pass-rate': '1' })).toEqual({
      errors: ['min-case-pass-rate: must be a number from 0.01 to 0.99'],
    });
  });

  test('fail-on accepts inconclusive', () => {
    expect(config({ 'fail-on': 'inconclusive' })).toMatchObject({ config: { failOn: 'inconclusive' } });
  });
});

describe("a suite's repeat key", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-repeat-suite-'));
  const ws = new Workspace(dir);
  let n = 0;
  const load = (repeat: string) => {
    const file = path.join(dir, `suite-${++n}.yaml`);
    writeFileSync(file, `repeat: ${repeat}\nevalcases:\n  - id: a\n    expected_outcome: x\n    input: y\n`);
    return loadSuiteFile(file, ws);
  };

  test('auto or a count is read onto the suite', () => {
    expect(load('auto').suite?.repeat).toBe('auto');
    expect(load('5').suite?.repeat).toBe(5);
  });

  test('the suite schema allows exactly the counts the engine does (its copy of MAX_REPEATS)', () => {
    expect(MAX_REPEATS).toBe(20);
    expect(load('20').suite?.repeat).toBe(20);
    expect(load('21').diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });

  test('anything else is a located error', () => {
    const errors = load('99')
      .diagnostics.filter((d) => d.severity === 'error')
      .map(formatDiagnostic);
    expect(errors).toEqual([`suite-${n}.yaml:1:9 size: repeat must be an integer from 1 to 20 or auto`]);
  });
});

test("an AgentV 5 / promptfoo suite's repeat key is read too", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 're-repeat-tests-'));
  const file = path.join(dir, 'suite.yaml');
  writeFileSync(
    file,
    'repeat: auto\nprompts: ["{{q}}"]\ntests:\n  - vars: { q: hi }\n    assert:\n      - type: contains\n        value: hi\n',
  );
  const loaded = loadSuiteFile(file, new Workspace(dir));
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(loaded.suite?.repeat).toBe('auto');
});
