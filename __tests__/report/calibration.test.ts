import { type CalibrationResults } from '../../src/core/calibration-results.js';
import { type RunResults } from '../../src/core/results.js';
import { calibrationSection } from '../../src/report/calibration.js';
import { inert } from '../../src/report/inert.js';

const HOSTILE = '@org/team <img src=x> [click](https://evil.example) <!--';

const agreement = {
  n: 12,
  agreement: 0.5,
  kappa: null,
  kappa_low: null,
  kappa_high: null,
  tpr: null,
  tnr: null,
  judge_yes_human_no: 3,
  judge_no_human_yes: 3,
  kappa_note: HOSTILE,
};

test("a merged shard's calibration text reaches the comment only through the neutraliser", () => {
  const calibration: CalibrationResults = {
    file: 'labels.jsonl',
    source: 'working tree',
    labels: 12,
    floor: 0.6,
    overall: agreement,
    rows: [],
    below_floor: [
      { suite: 'evals/x.yaml', id: 'c', check: 'names-paris', n: 12, kappa: 0.1, reason: HOSTILE },
    ],
    effect: 'advisory',
    errors: [],
    after_merge: null,
    usage: { judge_calls: 0, cached_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
  };
  const text = calibrationSection({ calibration } as unknown as RunResults);
  expect(text).not.toContain(HOSTILE);
  expect(text).not.toContain('@org/team');
  expect(text).not.toContain('<img');
  expect(text).not.toContain('<!--');
  // Both fields are there, made inert (as every other judge or file text is).
  expect(text.split(inert(HOSTILE)).length - 1).toBe(2);
});
