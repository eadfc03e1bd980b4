import { scoreToolTrajectory } from '../../src/evaluators/tool-trajectory.js';
import { type ExecutionTrace, type ToolCall } from '../../src/evaluators/trace.js';
import { type ToolCallExpectation } from '../../src/suite/types.js';

const call = (name: string, args?: Record<string, unknown>, durationMs?: number): ToolCall => ({
  name,
  args,
  durationMs,
});
const traceOf = (...toolCalls: ToolCall[]): ExecutionTrace => {
  const toolCallsByName: Record<string, number> = {};
  for (const c of toolCalls) toolCallsByName[c.name] = (toolCallsByName[c.name] ?? 0) + 1;
  return { toolCalls, toolCallsByName, llmCallCount: 1, tokenUsage: null, costUsd: null, durationMs: 10 };
};
const want = (tool: string, over: Partial<ToolCallExpectation> = {}): ToolCallExpectation => ({
  tool,
  args: null,
  maxDurationMs: null,
  ...over,
});

test('any_order: each minimum met is one hit; AgentV wording', () => {
  const s = scoreToolTrajectory(
    {
      mode: 'any_order',
      minimums: { knowledgeSearch: 1, documentRetrieve: 1, generateReport: 1 },
      expected: [],
    },
    traceOf(call('knowledgeSearch'), call('knowledgeSearch'), call('documentRetrieve')),
  );
  expect(s.score).toBeCloseTo(2 / 3, 12);
  expect(s.verdict).toBe('borderline');
  expect(s.hits).toEqual([
    'knowledgeSearch: called 2 times (required ≥1)',
    'documentRetrieve: called 1 times (required ≥1)',
  ]);
  expect(s.misses).toEqual(['generateReport: called 0 times (required ≥1)']);
  const short = scoreToolTrajectory(
    { mode: 'any_order', minimums: { search: 3 }, expected: [] },
    traceOf(call('search')),
  );
  expect(short.misses).toEqual(['search: called 1 times (required ≥3)']);
  expect(short.score).toBe(0);
});

test('in_order: gaps allowed, partial credit for the calls found in sequence', () => {
  const s = scoreToolTrajectory(
    { mode: 'in_order', minimums: {}, expected: [want('fetch'), want('validate'), want('save')] },
    traceOf(call('fetch'), call('log'), call('save'), call('validate')),
  );
  // fetch at 0, validate at 3, then nothing left for save.
  expect(s.hits).toEqual(['Found fetch at position 0', 'Found validate at position 3']);
  expect(s.misses).toEqual(['Expected save at position 2, not found in remaining trace']);
  expect(s.score).toBeCloseTo(2 / 3, 12);
});

test('in_order: the first call with the name decides; other args are a miss, `any` or no args skip the check', () => {
  const expected = [
    want('search', { args: { query: 'weather Paris' } }),
    want('get_weather', { args: 'any' }),
  ];
  const ok = scoreToolTrajectory(
    { mode: 'in_order', minimums: {}, expected },
    traceOf(call('search', { query: 'weather Paris', limit: 5 }), call('get_weather', { location: 'Rome' })),
  );
  expect(ok.score).toBe(1);
  const bad = scoreToolTrajectory(
    { mode: 'in_order', minimums: {}, expected },
    traceOf(
      call('search', { query: 'weather Rome' }),
      call('search', { query: 'weather Paris' }),
      call('get_weather'),
    ),
  );
  expect(bad.misses).toEqual(['Expected search at position 0: tool found at 0 but args mismatch']);
  expect(bad.hits).toEqual(['Found get_weather at position 2']);
  expect(bad.score).toBe(0.5);
});

test('exact: position by position; extra calls are a miss but the score counts the expected positions (as AgentV)', () => {
  const expected = [want('checkCredentials'), want('generateToken'), want('auditLog')];
  const extra = scoreToolTrajectory(
    { mode: 'exact', minimums: {}, expected },
    traceOf(call('checkCredentials'), call('generateToken'), call('auditLog'), call('sendEmail')),
  );
  expect(extra.misses).toEqual(['Expected 3 tool calls, got 4']);
  expect(extra.hits).toEqual([
    'Position 0: checkCredentials',
    'Position 1: generateToken',
    'Position 2: auditLog',
  ]);
  expect(extra.score).toBe(1);
  const wrong = scoreToolTrajectory(
    { mode: 'exact', minimums: {}, expected },
    traceOf(call('generateToken'), call('generateToken')),
  );
  expect(wrong.misses).toEqual([
    'Expected 3 tool calls, got 2',
    'Position 0: expected checkCredentials, got generateToken',
    'Position 2: expected auditLog, got nothing',
  ]);
  expect(wrong.score).toBeCloseTo(1 / 3, 12);
});

test('max_duration_ms: one more aspect per expected call, equal passes, neutral without a duration', () => {
  const expected = [
    want('fetchData', { maxDurationMs: 1000 }),
    want('validateSchema'),
    want('transformData', { maxDurationMs: 500 }),
    want('saveResults', { maxDurationMs: 200 }),
  ];
  const s = scoreToolTrajectory(
    { mode: 'in_order', minimums: {}, expected },
    traceOf(
      call('fetchData', undefined, 1000),
      call('validateSchema', undefined, 5),
      call('transformData', undefined, 501),
      call('saveResults'),
    ),
  );
  // 4 sequence hits + 1 latency hit of 6 aspects (saveResults has no duration: not counted).
  expect(s.hits).toContain('fetchData completed in 1000ms (max: 1000ms)');
  expect(s.misses).toEqual(['transformData took 501ms (max: 500ms)']);
  expect(s.score).toBeCloseTo(5 / 6, 12);
  expect(s.reasoning).toBe('1 latency assertion(s) skipped: no duration data');
});

test('no trace scores 0; an empty expectation passes', () => {
  expect(scoreToolTrajectory({ mode: 'any_order', minimums: { a: 1 }, expected: [] }, null)).toMatchObject({
    score: 0,
    verdict: 'fail',
    misses: ['No trace available for evaluation'],
  });
  expect(scoreToolTrajectory({ mode: 'exact', minimums: {}, expected: [] }, traceOf()).score).toBe(1);
});
