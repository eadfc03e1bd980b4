import { didYouMean, editDistance, nearest } from '../../src/core/did-you-mean.js';

test('edit distance counts a swap of neighbours as one edit', () => {
  expect(editDistance('wieght', 'weight')).toBe(1);
  expect(editDistance('requried', 'required')).toBe(1);
  expect(editDistance('required_min_scroe', 'required_min_score')).toBe(1);
  expect(editDistance('promt', 'prompt')).toBe(1);
  expect(editDistance('kitten', 'sitting')).toBe(3);
  expect(editDistance('', 'abc')).toBe(3);
});

test('did-you-mean: within one edit for short words, two from five letters, case-insensitive', () => {
  const keys = ['id', 'cwd', 'name', 'weight', 'required_min_score', 'rubrics'];
  expect(didYouMean('wieght', keys)).toBe('weight');
  expect(didYouMean('wiehgt', keys)).toBe('weight');
  expect(didYouMean('rubric', keys)).toBe('rubrics');
  expect(didYouMean('cdw', keys)).toBe('cwd');
  expect(didYouMean('Name', keys)).toBe('name');
  expect(didYouMean('nmae', keys)).toBe('name');
  expect(didYouMean('mode', keys)).toBeNull();
  expect(didYouMean('max_words', keys)).toBeNull();
  expect(didYouMean('nxmx', keys)).toBeNull();
  expect(nearest('nxmx', keys)).toBe('name');
});

test('one- and two-letter words get no suggestion but a different case', () => {
  expect(didYouMean('z', ['x'])).toBeNull();
  expect(didYouMean('ud', ['id'])).toBeNull();
  expect(didYouMean('ID', ['id'])).toBe('id');
});
