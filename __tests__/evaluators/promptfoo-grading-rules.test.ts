import { javascriptBody, pythonModule } from '../../src/evaluators/code-assertion.js';
import { gradeScriptValue } from '../../src/evaluators/code-result.js';
import { cosine, similarityOutcome } from '../../src/evaluators/similarity.js';

/** The pure rules of promptfoo's code and similarity assertions, as promptfoo states them. */

test('a single-line JavaScript expression gets its return; a declaration returns its last expression', () => {
  expect(javascriptBody('output.length < 200')).toBe('return output.length < 200');
  expect(javascriptBody('const s = output; s === "a;b";')).toBe('const s = output; return s === "a;b"');
  expect(javascriptBody('let n = (1; 2)')).toBe('let n = (1; 2)');
  expect(javascriptBody('const a = 1;\nreturn a')).toBe('const a = 1;\nreturn a');
});

test('inline Python becomes main(output, context), keeping the body’s own indentation', () => {
  expect(pythonModule('len(output) > 3')).toContain('def main(output, context):\n    return len(output) > 3');
  expect(pythonModule('n = 1\nreturn n')).toContain('def main(output, context):\n    n = 1\n    return n');
});

test('what a returned value means: booleans, numbers against a threshold, grading results, not-', () => {
  expect(gradeScriptValue(true, 'javascript', false, null)).toEqual({
    pass: true,
    score: 1,
    reason: 'Assertion passed',
  });
  expect(gradeScriptValue(false, 'javascript', true, null)).toMatchObject({ pass: true, score: 1 });
  expect(gradeScriptValue(0, 'javascript', false, null)).toMatchObject({ pass: false, score: 0 });
  expect(gradeScriptValue(0.4, 'javascript', false, 0.5)).toMatchObject({ pass: false, score: 0.4 });
  expect(gradeScriptValue(0.4, 'javascript', true, 0.5)).toMatchObject({ pass: true, score: 0.4 });
  expect(gradeScriptValue({ pass: true, score: 0.2, reason: 'r' }, 'javascript', false, 0.5)).toEqual({
    pass: true,
    score: 0.2,
    reason: 'r',
  });
  expect(gradeScriptValue({ pass: true, score: 0.2, reason: 'r' }, 'python', false, 0.5)).toMatchObject({
    pass: false,
    reason: 'Python score 0.2 is less than threshold 0.5: r',
  });
  expect(gradeScriptValue('TRUE', 'python', false, null)).toMatchObject({ pass: true });
  expect(gradeScriptValue('0.7', 'python', false, 0.5)).toMatchObject({ pass: true, score: 0.7 });
  expect(gradeScriptValue('{"pass": false, "score": 0}', 'python', false, null)).toMatchObject({
    pass: false,
  });
  expect(gradeScriptValue('yes', 'javascript', false, null)).toMatchObject({ pass: false, score: 0 });
  expect(gradeScriptValue(Number.NaN, 'javascript', false, null).pass).toBe(false);
});

test('similar passes on any value at the threshold; not-similar only when none is above it', () => {
  expect(cosine([1, 0], [1, 0])).toBe(1);
  expect(cosine([1, 0], [0, 1])).toBe(0);
  expect(similarityOutcome([0.2, 0.8], 0.75, false)).toMatchObject({ pass: true, score: 0.8 });
  expect(similarityOutcome([0.2, 0.5], 0.75, false)).toMatchObject({ pass: false, score: 0.5 });
  expect(similarityOutcome([0.2, 0.5], 0.75, true)).toMatchObject({ pass: true, score: 0.5 });
  expect(similarityOutcome([0.2, 0.9], 0.75, true)).toMatchObject({ pass: false });
  expect(similarityOutcome([0.2, 0.9], 0.75, true).score).toBeCloseTo(0.1, 10);
});
