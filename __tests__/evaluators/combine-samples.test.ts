import { combineChecklist, combineScoreRanges } from '../../src/evaluators/combine-samples.js';
import { emptyUsage } from '../../src/core/results.js';
import { type JudgeAnswer } from '../../src/judge/judge.js';
import { type ChecklistAnswer, type ScoreRangeAnswer } from '../../src/judge/schemas.js';
import { type ChecklistItem, type RangeCriterion } from '../../src/rubric/types.js';

const answer = <T>(value: T): JudgeAnswer<T> => ({
  value,
  usage: emptyUsage(),
  warnings: ['w'],
  cached: false,
});
/** The general path, reached by asking for votes: its result without them. */
const withoutVotes = <T extends { scored: { checks: object[] } }>(r: T) => ({
  ...r,
  scored: {
    ...r.scored,
    checks: r.scored.checks.map((c) => {
      const { votes: _v, sample_scores: _s, ...rest } = c as Record<string, unknown>;
      return rest;
    }),
  },
});

// A small deterministic generator: every case below is the same on every run.
function* seeded(seed: number): Generator<number> {
  for (let x = seed; ;) yield (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('one unsampled answer', () => {
  test('a checklist scores exactly as the general path does (missing, repeated and unknown ids, no reasoning)', () => {
    const rnd = seeded(7);
    const next = () => rnd.next().value as number;
    for (let round = 0; round < 200; round++) {
      const items: ChecklistItem[] = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, i) => ({
        id: `rubric-${i + 1}`,
        outcome: `item ${i}`,
        weight: Math.ceil(next() * 3),
        required: next() < 0.5,
      }));
      const checks: ChecklistAnswer['checks'] = [];
      for (const it of items) {
        if (next() < 0.15) continue; // the judge left it out
        checks.push({ id: it.id, satisfied: next() < 0.6, ...(next() < 0.8 ? { reasoning: 'r' } : {}) });
        if (next() < 0.1) checks.push({ id: it.id, satisfied: next() < 0.5, reasoning: 'again' });
      }
      if (next() < 0.2) checks.push({ id: 'rubric-99', satisfied: true, reasoning: 'unknown' });
      const one = [answer<ChecklistAnswer>({ checks } as ChecklistAnswer)];
      expect(combineChecklist(items, one, false)).toEqual(withoutVotes(combineChecklist(items, one, true)));
    }
  });

  test('score ranges score exactly as the general path does', () => {
    const rnd = seeded(11);
    const next = () => rnd.next().value as number;
    for (let round = 0; round < 200; round++) {
      const items: RangeCriterion[] = Array.from({ length: 1 + Math.floor(next() * 4) }, (_, i) => ({
        id: `rubric-${i + 1}`,
        outcome: `criterion ${i}`,
        weight: Math.ceil(next() * 3),
        requiredMinScore: next() < 0.4 ? Math.floor(next() * 11) : null,
        bands: [{ min: 0, max: 10, outcome: 'any' }],
      }));
      const checks: ScoreRangeAnswer['checks'] = [];
      for (const it of items) {
        if (next() < 0.15) continue;
        checks.push({
          id: it.id,
          score: Math.floor(next() * 11),
          ...(next() < 0.8 ? { reasoning: 'r' } : {}),
        });
      }
      const one = [answer<ScoreRangeAnswer>({ checks } as ScoreRangeAnswer)];
      expect(combineScoreRanges(items, one, false)).toEqual(
        withoutVotes(combineScoreRanges(items, one, true)),
      );
    }
  });
});
