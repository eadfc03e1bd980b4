import { scoreChecklist, scoreRanges, verdictForScore } from '../../src/rubric/scoring.js';
import { type ChecklistItem, type RangeCriterion } from '../../src/rubric/types.js';

const sat = (entries: Record<string, boolean>) =>
  new Map(Object.entries(entries).map(([id, satisfied]) => [id, { satisfied, reasoning: null }]));
const scored = (entries: Record<string, number>) =>
  new Map(Object.entries(entries).map(([id, score]) => [id, { score, reasoning: null }]));

describe('thresholds, exactly at the boundaries', () => {
  test.each([
    [1, 'pass'],
    [0.8, 'pass'],
    [0.7999, 'borderline'],
    [0.6, 'borderline'],
    [0.5999, 'fail'],
    [0, 'fail'],
  ])('%p is %s', (score, verdict) => expect(verdictForScore(score)).toBe(verdict));
  test('floating-point sums at the boundary still pass: 0.7 * 0.8 + 0.3 * 0.8', () => {
    expect(0.7 * 0.8 + 0.3 * 0.8).toBeLessThan(0.8);
    expect(verdictForScore(0.7 * 0.8 + 0.3 * 0.8)).toBe('pass');
  });
});

// A guide to HTTP status codes as a checklist: weights 1, 2, 2, 1.5, 1 (total 7.5); the first three required.
const http: ChecklistItem[] = [
  { id: 'structure', outcome: 'headings', weight: 1, required: true },
  { id: 'success-codes', outcome: '2xx', weight: 2, required: true },
  { id: 'client-errors', outcome: '4xx', weight: 2, required: true },
  { id: 'server-errors', outcome: '5xx', weight: 1.5, required: false },
  { id: 'practical-examples', outcome: 'examples', weight: 1, required: false },
];

describe('checklist: satisfied weight over total weight; a required item not satisfied fails', () => {
  test('all satisfied: 7.5/7.5 = 1, pass', () => {
    const r = scoreChecklist(
      http,
      sat({
        structure: true,
        'success-codes': true,
        'client-errors': true,
        'server-errors': true,
        'practical-examples': true,
      }),
    );
    expect(r.score).toBe(1);
    expect(r.verdict).toBe('pass');
  });
  test('optional 5xx missed: 6/7.5 = 0.8, pass exactly at the threshold', () => {
    const r = scoreChecklist(
      http,
      sat({
        structure: true,
        'success-codes': true,
        'client-errors': true,
        'server-errors': false,
        'practical-examples': true,
      }),
    );
    expect(r.score).toBeCloseTo(0.8, 12);
    expect(r.verdict).toBe('pass');
  });
  test('both optional missed: 5/7.5 = 0.667, borderline', () => {
    const r = scoreChecklist(
      http,
      sat({
        structure: true,
        'success-codes': true,
        'client-errors': true,
        'server-errors': false,
        'practical-examples': false,
      }),
    );
    expect(r.score).toBeCloseTo(5 / 7.5, 12);
    expect(r.verdict).toBe('borderline');
    expect(r.gating_violations).toEqual([]);
  });
  test('a required item missed gates to fail even at 0.867', () => {
    const r = scoreChecklist(
      http,
      sat({
        structure: false,
        'success-codes': true,
        'client-errors': true,
        'server-errors': true,
        'practical-examples': true,
      }),
    );
    expect(r.score).toBeCloseTo(6.5 / 7.5, 12);
    expect(r.verdict).toBe('fail');
    expect(r.gating_violations).toEqual(['structure: required item not satisfied']);
  });
  test('string rubrics (all required, weight 1): 2 of 4 met is 0.5, fail (the corpus baseline case)', () => {
    const items = [1, 2, 3, 4].map((i) => ({ id: `rubric-${i}`, outcome: 'x', weight: 1, required: true }));
    const r = scoreChecklist(
      items,
      sat({ 'rubric-1': true, 'rubric-2': false, 'rubric-3': true, 'rubric-4': false }),
    );
    expect(r.score).toBe(0.5);
    expect(r.verdict).toBe('fail');
    expect(r.gating_violations).toEqual([
      'rubric-2: required item not satisfied',
      'rubric-4: required item not satisfied',
    ]);
  });
});

// The summary case of the corpus: factual_accuracy (weight 2, min 8), brevity (weight 1).
const summary: RangeCriterion[] = [
  { id: 'factual_accuracy', outcome: '', weight: 2, requiredMinScore: 8, bands: [] },
  { id: 'brevity_and_clarity', outcome: '', weight: 1, requiredMinScore: null, bands: [] },
];

describe('score ranges: each 0..10 score normalised by /10, weighted by criterion', () => {
  test('normalised by /10 and weighted: (2*0.9 + 1*0.6)/3 = 0.8, pass', () => {
    const r = scoreRanges(summary, scored({ factual_accuracy: 9, brevity_and_clarity: 6 }));
    expect(r.score).toBeCloseTo(0.8, 12);
    expect(r.verdict).toBe('pass');
    expect(r.checks.map((c) => c.score)).toEqual([9, 6]);
  });
  test('required_min_score gating: 7 < 8 fails although (2*0.7 + 1*1)/3 = 0.8', () => {
    const r = scoreRanges(summary, scored({ factual_accuracy: 7, brevity_and_clarity: 10 }));
    expect(r.score).toBeCloseTo(0.8, 12);
    expect(r.verdict).toBe('fail');
    expect(r.gating_violations).toEqual(['factual_accuracy: score 7 is below required_min_score 8']);
  });
  test('exactly the minimum passes the gate', () => {
    expect(scoreRanges(summary, scored({ factual_accuracy: 8, brevity_and_clarity: 8 })).verdict).toBe(
      'pass',
    );
  });
  test('legacy required: true means min 10', () => {
    const strict: RangeCriterion[] = [{ id: 'c', outcome: '', weight: 1, requiredMinScore: 10, bands: [] }];
    expect(scoreRanges(strict, scored({ c: 9 })).verdict).toBe('fail');
    expect(scoreRanges(strict, scored({ c: 10 })).verdict).toBe('pass');
  });
  test('borderline band: 6/10 is borderline, 5/10 fails', () => {
    const one: RangeCriterion[] = [{ id: 'c', outcome: '', weight: 1, requiredMinScore: null, bands: [] }];
    expect(scoreRanges(one, scored({ c: 6 })).verdict).toBe('borderline');
    expect(scoreRanges(one, scored({ c: 5 })).verdict).toBe('fail');
  });
});
