import { configFromInputs, parseInputs } from '../../src/config/config.js';

const config = (raw: Record<string, string>) => {
  const p = parseInputs({ suites: 'evals/*.yaml', ...raw });
  if ('errors' in p) return p;
  return configFromInputs(p.inputs, { workingDirectory: '/w', resultsFile: '/w/r.json' });
};

test('min-pass-rate reads a share or a percentage; budget-usd a positive amount; junit-file a path; unset is null', () => {
  expect(config({})).toMatchObject({ minPassRate: null, budgetUsd: null, junitFile: null });
  expect(config({ 'min-pass-rate': '0.95' })).toMatchObject({ minPassRate: 0.95 });
  expect(config({ 'min-pass-rate': ' 95% ' })).toMatchObject({ minPassRate: 0.95 });
  expect(config({ 'min-pass-rate': '0' })).toMatchObject({ minPassRate: 0 });
  expect(config({ 'budget-usd': '2.50' })).toMatchObject({ budgetUsd: 2.5 });
  expect(config({ 'budget-usd': '$5' })).toMatchObject({ budgetUsd: 5 });
  expect(config({ 'junit-file': 'reports/junit.xml' })).toMatchObject({ junitFile: 'reports/junit.xml' });
});

test('a bad value names the input and what it accepts', () => {
  expect(config({ 'min-pass-rate': '1.5' })).toEqual({
    errors: ['min-pass-rate: must be a number from 0 to 1'],
  });
  expect(config({ 'min-pass-rate': '120%' })).toEqual({
    errors: ['min-pass-rate: must be a number from 0 to 1'],
  });
  expect(config({ 'min-pass-rate': 'most' })).toEqual({ errors: ['min-pass-rate: must be a number'] });
  expect(config({ 'budget-usd': '0' })).toEqual({
    errors: ['budget-usd: must be a number above 0 and at most 1000000'],
  });
  expect(config({ 'budget-usd': '-1' })).toEqual({
    errors: ['budget-usd: must be a number above 0 and at most 1000000'],
  });
});
