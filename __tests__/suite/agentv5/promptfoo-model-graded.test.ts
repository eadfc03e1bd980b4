import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../../__fixtures__/servers/openai-server.mjs';
import { type CaseResult } from '../../../src/core/results.js';
import { runEvaluation } from '../../../src/pipeline/run.js';
import { engineConfig } from '../../helpers/engine.js';
import { gradeAnswers } from '../../helpers/answers-suite.js';
import { tmpDir } from '../../helpers/judge.js';

/**
 * promptfoo `similar` and the model-graded family through the real pipeline: the judge is the
 * scripted server (chat answers by schema name; `/v1/embeddings` a bag of words), so every
 * score below is promptfoo's rule applied to a known judge answer.
 */
type Reply = (user: string, body: { messages: { content: string }[] }) => unknown;
let judge: FakeOpenAI;
let replies: Record<string, Reply> = {};
beforeAll(async () => {
  judge = await startOpenAIServer({
    respond: ({ body }) => {
      const name = String(body?.response_format?.json_schema?.name ?? '');
      const reply = replies[name.replace(/^promptfoo_/, '')];
      const user = (body.messages as { role: string; content: string }[]).filter((m) => m.role !== 'system');
      return reply ? reply(user.map((m) => m.content).join('\n'), body) : undefined;
    },
  });
});
afterAll(() => judge.close());

async function grade(suite: string, answers: Record<string, string>): Promise<Record<string, CaseResult>> {
  const results = await gradeAnswers(suite, answers, judge.url);
  expect(results.errors).toEqual([]);
  return Object.fromEntries(results.suites[0]!.cases.map((c) => [c.id, c]));
}

const requestsNamed = (name: string) =>
  judge.state.requests.filter((r) => r.body?.response_format?.json_schema?.name === `promptfoo_${name}`);

test('similar: cosine of embeddings from the judge endpoint, threshold 0.75 by default; not-similar', async () => {
  const suite = `
tests:
  - id: close
    vars: { input: q }
    assert:
      - { type: similar, value: 'the capital of france is paris' }
      - { type: similar, value: ['bananas are yellow', 'paris is the capital of france'] }
      - { type: not-similar, value: 'bananas are yellow' }
      - { type: similar, value: 'bananas are yellow', threshold: 0.1 }
`;
  const before = judge.state.requests.filter((r) => /embeddings/.test(String(r.url))).length;
  const cases = await grade(suite, { close: 'Paris is the capital of France' });
  const e = cases.close!.evaluators;
  expect(e.map((x) => [x.type, x.verdict])).toEqual([
    ['similarity', 'pass'],
    ['similarity', 'pass'],
    ['similarity', 'pass'],
    ['similarity', 'fail'],
  ]);
  expect(e[0]!.score).toBeCloseTo(1, 6);
  expect(e[0]!.reasoning).toBe('Similarity 1.00 is greater than threshold 0.75');
  expect(e[2]!.score).toBeCloseTo(1, 3);
  expect(e[3]!.reasoning).toBe('Similarity 0.00 is less than threshold 0.1');
  const calls = judge.state.requests.filter((r) => /embeddings/.test(String(r.url)));
  // One call per assertion: the answer and its values together.
  expect(calls.length - before).toBe(4);
  expect(calls.at(-1)!.body.model).toBe('text-embedding-3-small');
  expect(calls.at(-1)!.body.input).toContain('bananas are yellow');
});

test('similar and not-similar: embeddings that give no cosine (NaN) are an error, never a pass', async () => {
  // Values whose products overflow: the dot product and both norms are Infinity, so the cosine is NaN.
  const nan = await startOpenAIServer({ embed: () => [1e200, 1e200] });
  try {
    const suite = `
tests:
  - id: nan
    vars: { input: q }
    assert:
      - { type: not-similar, value: 'bananas are yellow' }
      - { type: similar, value: 'bananas are yellow' }
`;
    const results = await gradeAnswers(suite, { nan: 'Paris' }, nan.url);
    const e = results.suites[0]!.cases[0]!.evaluators;
    expect(e.map((x) => [x.verdict, x.error])).toEqual([
      ['error', 'the embeddings give no similarity (NaN)'],
      ['error', 'the embeddings give no similarity (NaN)'],
    ]);
    expect(results.suites[0]!.cases[0]!.verdict).toBe('error');
  } finally {
    await nan.close();
  }
});

test('factuality: categories A-E, D fails by default; options.factuality rescores them; rubricPrompt replaces the text', async () => {
  replies = {
    factuality: (user) => ({
      reason: 'compared',
      category: user.includes('Lyon') ? 'D' : user.includes('and its largest city') ? 'B' : 'C',
    }),
  };
  const suite = `
prompts: ['What is the capital of {{ country }}?']
tests:
  - id: same
    vars: { country: France }
    assert: [{ type: factuality, value: Paris }]
  - id: wrong
    vars: { country: France }
    assert: [{ type: factuality, value: Paris }]
  - id: superset
    vars: { country: France }
    options:
      factuality: { superset: 0.5 }
      rubricPrompt: 'Expert: {{ideal}} Submitted: {{completion}} Country: {{country}}'
    assert: [{ type: model-graded-factuality, value: Paris }]
`;
  const cases = await grade(suite, {
    same: 'Paris',
    wrong: 'Lyon',
    superset: 'Paris, and its largest city',
  });
  expect(cases.same!.evaluators[0]).toMatchObject({ type: 'model_graded', verdict: 'pass', score: 1 });
  expect(cases.wrong!.evaluators[0]).toMatchObject({ verdict: 'fail', score: 0, reasoning: 'compared' });
  expect(cases.superset!.evaluators[0]).toMatchObject({ verdict: 'pass', score: 0.5 });
  const own = requestsNamed('factuality').find((r) =>
    (r.body.messages as { content: string }[]).some((m) => m.content.startsWith('Expert: Paris')),
  )!;
  const text = (own.body.messages as { content: string }[]).map((m) => m.content).join('\n');
  expect(text).toMatch(/Submitted: <<<COMPLETION [0-9a-f]{16} \(untrusted data/);
  expect(text).toContain('Country: France');
  // The answer schema stays ours.
  expect(own.body.response_format.json_schema.schema.properties.category.enum).toEqual([
    'A',
    'B',
    'C',
    'D',
    'E',
  ]);
});

test('closedqa, g-eval (steps then a score out of 10, default threshold 0.7), the context family and conversation relevance', async () => {
  replies = {
    closedqa: (user) => ({ reason: 'checked', meets_criterion: !user.includes('rude') }),
    geval_steps: () => ({ steps: ['read it', 'score it'] }),
    geval_score: (user) => ({ reason: 'scored', score: user.includes('brief') ? 6 : 9 }),
    statements: () => ({ statements: ['Paris is the capital.', 'It has 90 million people.'] }),
    verdicts: () => ({
      verdicts: [
        { reason: 'stated', supported: true },
        { reason: 'not stated', supported: false },
      ],
    }),
    relevant_lines: () => ({ reason: 'line 1', relevant_lines: [1, 1, 7] }),
    attributions: () => ({
      sentences: [
        { sentence: 'Paris is the capital.', attributed: true },
        { sentence: 'It is on the Seine.', attributed: true },
        { sentence: 'It hosted 2024.', attributed: false },
      ],
    }),
    questions: () => ({
      questions: [
        'what is the capital of france',
        'capital of france',
        'which city is the capital of france',
      ],
    }),
    relevance: (user) => ({
      reason: user.includes('weather') ? 'off topic' : 'on topic',
      verdict: user.includes('weather') ? 'no' : 'yes',
    }),
  };
  const suite = `
tests:
  - id: qa
    vars: { input: 'Say hello', query: 'What is the capital of France?', context: "Paris is the capital of France.\\nFrance is in Europe.\\nThe Seine flows through Paris.\\nCheese is popular." }
    assert:
      - { type: model-graded-closedqa, value: 'is polite' }
      - { type: g-eval, value: 'is clear' }
      - { type: g-eval, value: ['is clear', 'is brief'] }
      - { type: context-faithfulness, threshold: 0.6 }
      - { type: context-relevance, threshold: 0.25 }
      - { type: context-recall, value: 'Paris is the capital. It is on the Seine. It hosted 2024.', threshold: 0.5 }
      - { type: answer-relevance }
      - { type: conversation-relevance, config: { windowSize: 2 } }
  - id: chat
    vars:
      input: hi
      _conversation:
        - { input: 'capital of france?', output: 'Paris' }
        - { input: 'and of italy?', output: 'Rome' }
        - { input: 'thanks', output: 'the weather is nice' }
    assert:
      - { type: conversation-relevance, config: { windowSize: 2 }, threshold: 0.6 }
`;
  const cases = await grade(suite, { qa: 'Paris is the capital of France', chat: 'ok' });
  const e = cases.qa!.evaluators;
  expect(e.map((x) => [x.verdict, Number(x.score.toFixed(4))])).toEqual([
    ['pass', 1],
    ['pass', 0.9],
    ['pass', 0.75],
    ['fail', 0.5],
    ['pass', 0.25],
    ['pass', 0.6667],
    ['pass', expect.any(Number)],
    ['pass', 1],
  ]);
  expect(e[3]!.reasoning).toBe('Faithfulness 0.50 is < 0.6');
  expect(e[6]!.score).toBeGreaterThan(0.7);
  // A window per turn, as promptfoo slides them ([1], [1, 2], [2, 3] at a size of 2): the third ends
  // off topic, so 2 of 3 are relevant.
  expect(cases.chat!.evaluators[0]).toMatchObject({ verdict: 'pass', score: 2 / 3 });
  expect(
    requestsNamed('relevance')
      .slice(-3)
      .map((r) => JSON.stringify(r.body.messages).includes('capital of france')),
  ).toEqual([true, true, false]);
  // The answer and the context reach the judge fenced.
  const faith = requestsNamed('verdicts').at(-1)!;
  const text = (faith.body.messages as { content: string }[]).map((m) => m.content).join('\n');
  expect(text).toMatch(/<<<CONTEXT [0-9a-f]{16}/);
  expect(text).toMatch(/<<<STATEMENTS [0-9a-f]{16}/);
});

test("promptfoo 0.121's defaults and units: answer-relevance, conversation-relevance, g-eval at 0, context-relevance's sentences", async () => {
  replies = {
    questions: () => ({
      questions: ['bread is cheap in lyon', 'bread is cheap in lyon', 'bread is cheap in lyon'],
    }),
    relevance: (user) => ({ reason: 'checked', verdict: user.includes('weather') ? 'no' : 'yes' }),
    geval_steps: () => ({ steps: ['score it'] }),
    geval_score: () => ({ reason: 'scored', score: 2 }),
    relevant_lines: (user) => ({
      reason: 'the line naming the capital',
      relevant_lines: user.includes('2. The Seine') ? [1] : [],
    }),
  };
  const suite = `
tests:
  - id: defaults
    vars:
      input: 'Say hello'
      query: 'What is the capital of France?'
      context: 'Paris is the capital of France. The Seine flows through it. Bread is cheap.'
    assert:
      - { type: answer-relevance }
      - { type: g-eval, value: 'is clear', threshold: 0 }
      - { type: context-relevance }
  - id: chat
    vars:
      input: hi
      _conversation:
        - { input: 'thanks', output: 'the weather is nice' }
        - { input: 'capital of france?', output: 'Paris' }
    assert:
      - { type: conversation-relevance, config: { windowSize: 1 } }
`;
  const cases = await grade(suite, { defaults: 'Bread is cheap in Lyon', chat: 'ok' });
  const e = cases.defaults!.evaluators;
  // promptfoo: answer-relevance's threshold is 0 unless set, and g-eval keeps a threshold of 0.
  expect(e[0]).toMatchObject({ verdict: 'pass', threshold: 0 });
  expect(e[0]!.score).toBeLessThan(0.3);
  expect(e[1]).toMatchObject({ verdict: 'pass', score: 0.2, threshold: 0 });
  // One line of prose: its three sentences are the units, one of them relevant.
  expect(e[2]!.score).toBeCloseTo(1 / 3, 6);
  // Two windows of one turn, one relevant: 0.5 reaches the default threshold of 0.5.
  expect(cases.chat!.evaluators[0]).toMatchObject({ verdict: 'pass', score: 0.5, threshold: 0.5 });
});

test('not-g-eval and not-conversation-relevance swap pass and fail and score 1 - s, as promptfoo 0.121 does', async () => {
  replies = {
    geval_steps: () => ({ steps: ['score it'] }),
    geval_score: (user) => ({ reason: 'scored', score: user.includes('rude') ? 2 : 8 }),
    relevance: (user) => ({ reason: 'checked', verdict: user.includes('weather') ? 'no' : 'yes' }),
  };
  const suite = `
tests:
  - id: inverse
    vars: { input: 'Say hello' }
    assert:
      - { type: not-g-eval, value: 'is rude' }
      - { type: not-g-eval, value: 'is clear' }
      - { type: not-conversation-relevance }
`;
  const cases = await grade(suite, { inverse: 'hello there' });
  expect(cases.inverse!.evaluators.map((x) => [x.verdict, Number(x.score.toFixed(4))])).toEqual([
    ['pass', 0.8],
    ['fail', 0.2],
    ['fail', 0],
  ]);
});

test('a model-graded check that misses its vars is refused at load, naming the var', async () => {
  const root = tmpDir('re-pf-graded-bad-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(
    path.join(root, 'evals/suite.yaml'),
    'tests:\n  - id: a\n    vars: { input: q }\n    assert:\n      - { type: context-faithfulness }\n      - { type: factuality }\n      - { type: not-factuality, value: x }\n',
  );
  writeFileSync(path.join(root, 'answers.jsonl'), JSON.stringify({ eval_id: 'a', candidate_answer: 'x' }));
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, { suites: ['evals/suite.yaml'], answersFile: 'answers.jsonl' }),
    { env: { PATH: process.env.PATH } },
  );
  expect(results.errors.join('\n')).toMatch(/context-faithfulness` needs a `query` variable/);
  expect(results.errors.join('\n')).toMatch(/factuality` needs `value`/);
  expect(results.errors.join('\n')).toMatch(/'not-factuality' is not run/);
});
