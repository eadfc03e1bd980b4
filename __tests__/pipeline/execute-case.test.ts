import { finishedCase } from '../../src/pipeline/execute-case.js';
import { type CaseAggregate } from '../../src/evaluators/case-scoring.js';
import { type AnswerCut, type EvaluatorResult } from '../../src/core/results.js';
import { type Usage } from '../../src/core/usage.js';

const base = { id: 'c1', definition_hash: '0123456789abcdef', line: 3, target: 'default' };
const evaluators: EvaluatorResult[] = [
  { name: 'rubric', type: 'llm_judge', weight: 1, score: 1, verdict: 'pass', gating_violations: [] },
];
const usage: Usage = {
  judge_calls: 1,
  cached_calls: 0,
  prompt_tokens: 10,
  completion_tokens: 5,
  cost_usd: null,
};
const cutOf: AnswerCut = { original_chars: 200_000, kept_chars: 100_000 };

test.each([
  [false, false],
  [true, false],
  [false, true],
  [true, true],
])(
  'a finished case has the keys, in the order, of its spread definition (unstable %s, cut %s)',
  (unstable, cut) => {
    const agg: CaseAggregate = { score: 1, verdict: 'pass', gating_violations: [] };
    if (unstable) agg.unstable = true;
    const answerCut = cut ? cutOf : null;
    // What the results file wrote before the case was built key by key.
    const spread = {
      ...{ ...base, gating_violations: [] as string[] },
      ...agg,
      evaluators,
      answer: 'Paris.',
      ...(answerCut ? { answer_cut: answerCut } : {}),
      duration_ms: 12,
      usage,
    };
    const built = finishedCase(base, agg, evaluators, 'Paris.', answerCut, 12, usage);
    expect(JSON.stringify(built)).toBe(JSON.stringify(spread));
  },
);
