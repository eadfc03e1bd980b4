import fc from 'fast-check';
import { type CheckResult, type EvaluatorResult } from '../../src/core/results.js';
import {
  autoWanted,
  checklistVoteSets,
  collectKnobs,
  markUnstable,
  openRange,
  verdictWith,
} from '../../src/evaluators/sample-doubt.js';
import { evaluatorVerdict, weightedMeanOrEqual } from '../../src/rubric/scoring.js';
import { aggregateCase } from '../../src/evaluators/case-scoring.js';
import { type EvaluatorConfig, type LlmJudgeConfig } from '../../src/suite/types.js';

// Hand-built results of one checklist evaluator, as the sampled judge leaves them.
const pos = { file: 'suite.yaml', line: 1, column: 1 };
const judgeConfig = (name = 'rubric'): LlmJudgeConfig => ({
  type: 'llm_judge',
  name,
  weight: 1,
  pos,
  rubrics: null,
  prompt: null,
});

/** `votes` per item as `yes/total`; `req` marks required items. */
function checklist(
  items: { votes: string; required?: boolean; weight?: number }[],
  name = 'rubric',
): EvaluatorResult {
  const checks: CheckResult[] = items.map((it, i) => {
    const [yes, total] = it.votes.split('/').map(Number) as [number, number];
    return {
      id: `rubric-${i + 1}`,
      satisfied: yes * 2 > total,
      weight: it.weight ?? 1,
      required: it.required ?? true,
      reasoning: null,
      votes: it.votes,
    };
  });
  const met = weightedMeanOrEqual(checks.map((c) => ({ value: c.satisfied ? 1 : 0, weight: c.weight })));
  const gating = checks
    .filter((c) => c.required && !c.satisfied)
    .map((c) => `${c.id}: required item not satisfied`);
  return {
    name,
    type: 'llm_judge',
    weight: 1,
    mode: 'checklist',
    score: met,
    verdict: evaluatorVerdict(met, gating),
    checks,
    gating_violations: gating,
    samples: Number(items[0]!.votes.split('/')[1]),
  };
}

const configs: EvaluatorConfig[] = [judgeConfig()];
const wanted = (r: EvaluatorResult) => autoWanted(configs, [r], 7);

describe('the auto stopping rule', () => {
  const req = (...ys: number[]) => checklist(ys.map((y) => ({ votes: `${y}/1` })));
  const opt = (...ys: number[]) => checklist(ys.map((y) => ({ votes: `${y}/1`, required: false })));

  test('one sample: no more where the verdict is very likely right', () => {
    // Failing on five required items: all five would have to be the judge's slips.
    expect(wanted(req(0, 0, 0, 0, 0))).toEqual([]);
    // Failing on two required items of three: both slips (doubt 0.035, under one in ten).
    expect(wanted(req(0, 0, 1))).toEqual([]);
    // Two of ten required items missed: a multi-miss fail is a real fail more often than not.
    expect(wanted(req(0, 0, 1, 1, 1, 1, 1, 1, 1, 1))).toEqual([]);
    // Non-required items with margin: 5/5.
    expect(wanted(opt(1, 1, 1, 1, 1))).toEqual([]);
    // A pass on two required items: one false "met" among two is unlikely (0.041).
    expect(wanted(req(1, 1))).toEqual([]);
    // 4/5 non-required: a pass that one false "met" makes borderline, but that is unlikely (0.064).
    expect(wanted(opt(1, 1, 1, 1, 0))).toEqual([]);
  });

  test('one sample: in doubt where a slip of the judge is likely enough to change the verdict', () => {
    // Failing on exactly one required item of three: that one miss may be a slip (0.148).
    expect(wanted(req(0, 1, 1))).toEqual(['e/0']);
    // A pass on ten required items: some "met" among ten is a slip too often (0.158).
    expect(wanted(req(1, 1, 1, 1, 1, 1, 1, 1, 1, 1))).toEqual(['e/0']);
    // 3/5 non-required (borderline): one of two misses being a slip passes it (0.308).
    expect(wanted(opt(1, 1, 1, 0, 0))).toEqual(['e/0']);
  });

  test('more samples: agreement settles it; a split on a deciding item asks again', () => {
    expect(wanted(checklist([{ votes: '2/2' }, { votes: '2/2' }]))).toEqual([]);
    // A split on a deciding item: one more sample.
    expect(wanted(checklist([{ votes: '1/2' }, { votes: '2/2' }]))).toEqual(['e/0']);
    // 2 of 3 met settles it; 1 of 3 on a required item is still a likely "met" (0.32): one more.
    expect(wanted(checklist([{ votes: '2/3' }, { votes: '3/3' }]))).toEqual([]);
    expect(wanted(checklist([{ votes: '1/3' }, { votes: '3/3' }]))).toEqual(['e/0']);
    expect(wanted(checklist([{ votes: '1/5' }, { votes: '5/5' }]))).toEqual([]);
    // A tie at four is open; at the cap there is no more.
    expect(wanted(checklist([{ votes: '2/4' }, { votes: '4/4' }]))).toEqual(['e/0']);
    expect(autoWanted(configs, [checklist([{ votes: '2/4' }, { votes: '4/4' }])], 4)).toEqual([]);
  });

  test('where the run tops up, a checklist judge stops at the cap its case is given; others do not', () => {
    const split = checklist([{ votes: '1/2' }, { votes: '2/2' }]);
    expect(autoWanted(configs, [split], 7, undefined, 2)).toEqual([]);
    expect(autoWanted(configs, [checklist([{ votes: '0/1' }, { votes: '1/1' }])], 7, undefined, 2)).toEqual([
      'e/0',
    ]);
  });

  test('the votes a run fits its noise to: every checklist judge, with its votes', () => {
    const two: EvaluatorConfig[] = [judgeConfig('a'), judgeConfig('b')];
    const results = [checklist([{ votes: '1/2' }], 'a'), checklist([{ votes: '2/3', required: false }], 'b')];
    expect(checklistVoteSets(two, results)).toEqual([
      [{ key: 'e/0#rubric-1', yes: 1, total: 2, weight: 1, required: true }],
      [{ key: 'e/1#rubric-1', yes: 2, total: 3, weight: 1, required: false }],
    ]);
  });

  test('a split that cannot change the verdict takes no more samples', () => {
    // rubric-2 fails unanimously (required), so rubric-1's split decides nothing.
    expect(wanted(checklist([{ votes: '1/2' }, { votes: '0/2' }, { votes: '2/2' }]))).toEqual([]);
  });

  test('splits that only together could change the verdict: every open evaluator takes one more', () => {
    const two: EvaluatorConfig[] = [judgeConfig('a'), judgeConfig('b')];
    // Each evaluator alone: its split item at either end leaves the other's tie failing the case.
    const results = [checklist([{ votes: '1/2' }], 'a'), checklist([{ votes: '1/2' }], 'b')];
    expect(autoWanted(two, results, 5).sort()).toEqual(['e/0', 'e/1']);
  });

  test('open range: agreement or a majority of three closes it', () => {
    const knob = (values: number[]) => ({
      path: 'e/0',
      key: 'e/0#x',
      values,
      combined: 0,
      step: 1,
      max: 10,
      target: {} as CheckResult,
    });
    expect(openRange(knob([7]))).toBeNull();
    expect(openRange(knob([7, 7]))).toBeNull();
    expect(openRange(knob([6, 8]))).toEqual([6, 8]);
    expect(openRange(knob([6, 8, 8]))).toBeNull();
    expect(openRange(knob([6, 7, 8]))).toEqual([6, 8]);
  });
});

test('unstable: a split on a check that decides the verdict marks the check, the evaluator and the case', () => {
  const split = checklist([{ votes: '2/3' }, { votes: '3/3' }]);
  expect(markUnstable(configs, [split])).toBe(true);
  expect(split.checks![0]!.unstable).toBe(true);
  expect(split.checks![1]!.unstable).toBeUndefined();
  expect(split.unstable).toBe(true);
  expect(aggregateCase([split]).unstable).toBe(true);

  // The same split where another required item fails anyway: not unstable.
  const moot = checklist([{ votes: '2/3' }, { votes: '0/3' }]);
  expect(markUnstable(configs, [moot])).toBe(false);
  expect(aggregateCase([moot])).not.toHaveProperty('unstable');
});

describe('properties', () => {
  const ORDER = { skipped: -2, error: -1, fail: 0, borderline: 1, pass: 2 } as const;
  // A checklist with random weights, required flags and 1..5 samples of votes per item.
  const arbChecklist = fc
    .record({
      n: fc.integer({ min: 1, max: 5 }),
      items: fc.array(
        fc.record({ weight: fc.integer({ min: 0, max: 3 }), required: fc.boolean(), seed: fc.nat() }),
        {
          minLength: 1,
          maxLength: 8,
        },
      ),
    })
    .map(({ n, items }) =>
      checklist(
        items.map((it) => ({ votes: `${it.seed % (n + 1)}/${n}`, required: it.required, weight: it.weight })),
      ),
    );

  test('the replayed verdict is the verdict the run gives, and it is monotone in every check', () => {
    fc.assert(
      fc.property(arbChecklist, (r) => {
        const base = verdictWith(configs, [r], new Map());
        expect(base).toBe(aggregateCase([r]).verdict);
        for (const k of collectKnobs(configs, [r])) {
          const low = verdictWith(configs, [r], new Map([[k.key, 0]]));
          const high = verdictWith(configs, [r], new Map([[k.key, 1]]));
          expect(ORDER[low]).toBeLessThanOrEqual(ORDER[base]);
          expect(ORDER[high]).toBeGreaterThanOrEqual(ORDER[base]);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('the rule never asks past the cap, and never asks again once every item has three agreeing samples', () => {
    fc.assert(
      fc.property(arbChecklist, (r) => {
        const n = r.samples!;
        expect(autoWanted(configs, [r], n)).toEqual([]);
        const agreed = r.checks!.every((c) => c.votes === `0/${n}` || c.votes === `${n}/${n}`);
        if (n >= 3 && agreed) expect(autoWanted(configs, [r], 7)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

test('doubt follows the case’s own verdict rule: AgentV 5’s threshold has no borderline step', () => {
  // 2/5 non-required items: 0.4. One more met gives 0.6: borderline in v2 (in doubt), still a
  // fail against AgentV 5's 0.8 threshold (no doubt: more samples cannot change the verdict).
  const r = checklist([1, 1, 0, 0, 0].map((y) => ({ votes: `${y}/1`, required: false })));
  expect(autoWanted(configs, [r], 5)).toEqual(['e/0']);
  expect(autoWanted(configs, [r], 5, { kind: 'threshold', threshold: 0.8 })).toEqual([]);
  // At 0.6 threshold the same one flip passes the test: in doubt again.
  expect(autoWanted(configs, [r], 5, { kind: 'threshold', threshold: 0.6 })).toEqual(['e/0']);
});
