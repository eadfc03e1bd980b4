import { existsSync } from 'node:fs';
import path from 'node:path';
import { noisyChecklist } from '../../__fixtures__/servers/noisy-judge.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type Config } from '../../src/config/config.js';
import { JudgeCache } from '../../src/judge/cache.js';
import { type CaseResult } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { refundSuite } from '../helpers/refund-suite.js';

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const suite = (cases: Record<string, string>) => refundSuite(cases, 're-samples-');

const FREEFORM = '    execution:\n      evaluators:\n        - name: overall\n          type: llm_judge\n';

/** A checklist of string (required) items, each with its `[p=…]` for the noisy judge. */
const items = (...ps: number[]) =>
  `    rubrics:\n${ps.map((p, i) => `      - Item ${i + 1} [p=${p}]\n`).join('')}`;

async function run(root: string, over: Partial<Config> = {}) {
  const outcome = await runEvaluation(engineConfig(root, server!.url, { suites: ['suite.yaml'], ...over }), {
    env: {},
  });
  expect(outcome.results.errors).toEqual([]);
  const cases = Object.fromEntries(outcome.results.suites[0]!.cases.map((c) => [c.id, c])) as Record<
    string,
    CaseResult
  >;
  return { results: outcome.results, cases };
}

/** The requests the judge got for one case (the case id is in the question). */
const requestsFor = (id: string) =>
  server!.state.requests.filter((r) => JSON.stringify(r.body).includes(`[${id}]`));
const rubricLines = (body: { messages: { content: string }[] }) =>
  body.messages[1]!.content.split('\n').filter((l) => /^\[rubric-\d\]/.test(l));

test('default 1: one call per evaluator with the same request, cache key and results as before samples existed', async () => {
  server = await startOpenAIServer({});
  const root = suite({
    list: items(1, 1, 1),
    free: FREEFORM,
  });
  const cacheDir = path.join(root, 'cache');
  const { results, cases } = await run(root, { cacheDir, cacheMode: 'readwrite' });
  expect(server.state.requests).toHaveLength(2);
  for (const r of server.state.requests) {
    expect(r.body).toMatchObject({ temperature: 0, seed: 42 });
    // The key is the one the cache always used (no sample index in it).
    const key = JudgeCache.key({
      baseURL: server.url,
      model: 'gpt-4.1-mini',
      messages: r.body.messages,
      schema: r.body.response_format.json_schema.schema,
      temperature: 0,
      seed: 42,
    });
    expect(existsSync(path.join(cacheDir, key.slice(0, 2), `${key}.json`))).toBe(true);
  }
  expect(rubricLines(requestsFor('list')[0]!.body).map((l) => l.slice(0, 11))).toEqual([
    '[rubric-1] ',
    '[rubric-2] ',
    '[rubric-3] ',
  ]);
  // Nothing about samples in the results.
  expect(JSON.stringify(results)).not.toMatch(/"(samples|votes|sample_scores|unstable)"/);
  expect(cases.list!.verdict).toBe('pass');
  expect(cases.free!.evaluators[0]).toMatchObject({ mode: 'freeform', score: 1 });
});

test('N samples: majority per item (a tie is not satisfied); later samples warmer, reseeded and reordered, same ids and shape', async () => {
  // rubric-1 is met only in the first sample; rubric-2 in all but the second.
  const met: Record<number, Record<string, boolean>> = {
    42: { 'rubric-1': true, 'rubric-2': true, 'rubric-3': true },
    43: { 'rubric-1': false, 'rubric-2': false, 'rubric-3': true },
    44: { 'rubric-1': false, 'rubric-2': true, 'rubric-3': true },
  };
  server = await startOpenAIServer({
    respond: ({ body, desc }) => ({
      checks: desc.ids.map((id) => ({ id, reasoning: `seed ${body.seed}`, satisfied: met[body.seed]![id] })),
      overall_reasoning: `overall ${body.seed}`,
    }),
  });
  const root = suite({ c: items(1, 1, 1) });
  const three = await run(root, { judgeSamples: 3 });
  const reqs = requestsFor('c');
  expect(reqs.map((r) => [r.body.temperature, r.body.seed])).toEqual([
    [0, 42],
    [0.7, 43],
    [0.7, 44],
  ]);
  const enumOf = (b: { response_format: { json_schema: { schema: unknown } } }) =>
    JSON.stringify(b.response_format.json_schema.schema);
  expect(new Set(reqs.map((r) => enumOf(r.body))).size).toBe(1);
  const orders = reqs.map((r) => rubricLines(r.body).map((l) => l.slice(1, 9)));
  expect(orders[0]).toEqual(['rubric-1', 'rubric-2', 'rubric-3']);
  for (const o of orders.slice(1)) {
    expect([...o].sort()).toEqual(orders[0]);
    expect(o).not.toEqual(orders[0]);
  }
  const e = three.cases.c!.evaluators[0]!;
  expect(e.samples).toBe(3);
  expect(e.checks!.map((k) => [k.id, k.satisfied, k.votes])).toEqual([
    ['rubric-1', false, '1/3'],
    ['rubric-2', true, '2/3'],
    ['rubric-3', true, '3/3'],
  ]);
  // The reasons shown agree with the combined verdict; the overall reasoning is the most agreeing sample's.
  expect(e.checks![0]!.reasoning).toBe('seed 43');
  expect(e.reasoning).toBe('overall 44');
  expect(e.usage!.judge_calls).toBe(3);
  expect(three.results.usage.judge_calls).toBe(3);
  // rubric-1's split decides the verdict (it is required): the case is unstable.
  expect(three.cases.c!.unstable).toBe(true);
  expect(e.checks![0]!.unstable).toBe(true);

  // Two samples: rubric-1 and rubric-2 tie 1/2, and a tie is not satisfied.
  const two = await run(root, { judgeSamples: 2 });
  expect(two.cases.c!.evaluators[0]!.checks!.map((k) => [k.satisfied, k.votes])).toEqual([
    [false, '1/2'],
    [false, '1/2'],
    [true, '2/2'],
  ]);
});

test('range criteria and free-form scores combine by the lower median', async () => {
  const range: Record<number, number> = { 42: 8, 43: 4, 44: 6, 45: 9 };
  const free: Record<number, number> = { 42: 0.9, 43: 0.5, 44: 0.7, 45: 0.6 };
  server = await startOpenAIServer({
    respond: ({ body, desc }) =>
      desc.mode === 'score_range'
        ? {
            checks: desc.ids.map((id) => ({ id, reasoning: `r${body.seed}`, score: range[body.seed] })),
            overall_reasoning: null,
          }
        : { score: free[body.seed], hits: [`h${body.seed}`], misses: [], reasoning: `f${body.seed}` },
  });
  const root = suite({
    ranged:
      '    rubrics:\n      - id: accuracy\n        expected_outcome: Accurate\n        score_ranges:\n          0: wrong\n          5: partly\n          8: right\n',
    free: FREEFORM,
  });
  const { cases } = await run(root, { judgeSamples: 4 });
  expect(cases.ranged!.evaluators[0]!.checks![0]).toMatchObject({
    score: 6,
    sample_scores: [8, 4, 6, 9],
    reasoning: 'r44',
  });
  expect(cases.free!.evaluators[0]).toMatchObject({
    score: 0.6,
    samples: 4,
    sample_scores: [0.9, 0.5, 0.7, 0.6],
    reasoning: 'f45',
    hits: ['h45'],
  });
});

test("auto: a case asks again where a wrong verdict is likely (a wide pass, a split); the run's leftover call goes to the likeliest wrong verdict left", async () => {
  server = await startOpenAIServer({
    respond: (req) => {
      // In case "split", rubric-1 is not met only in the second sample.
      if (req.desc.text.includes('[split]'))
        return {
          checks: req.desc.ids.map((id) => ({
            id,
            reasoning: 'x',
            satisfied: !(id === 'rubric-1' && req.body.seed === 43),
          })),
          overall_reasoning: 'x',
        };
      return noisyChecklist()(req);
    },
  });
  const ten = Array.from({ length: 10 }, () => 1);
  const root = suite({
    dead: items(0, 0, 0, 0, 0),
    sure: items(1, 1, 1),
    wide: items(...ten),
    split: items(...ten),
  });
  const { cases, results } = await run(root, { judgeSamples: 'auto' });
  // Five misses: a slip of the judge changing it is all but impossible (doubt 0.001): never again.
  expect(requestsFor('dead')).toHaveLength(1);
  expect(cases.dead!.evaluators[0]!.samples).toBe(1);
  // A pass on three items (doubt 0.06) does not ask by itself. The split stops at 1/2 (a
  // checklist judge takes at most 2 samples by its case's doubt when the run tops up), so the
  // cases took 4 first calls and 2 more: the run has 2 of its 2 x 4 left. Under its fit of the
  // judge's noise the split's tie is the likeliest wrong verdict (its third sample: 2/3), then
  // this pass.
  expect(requestsFor('sure')).toHaveLength(2);
  expect(cases.sure).toMatchObject({ verdict: 'pass' });
  // A pass on ten required items: one false "met" among ten is likely enough to look again.
  expect(requestsFor('wide')).toHaveLength(2);
  expect(cases.wide).toMatchObject({ verdict: 'pass' });
  expect(cases.wide).not.toHaveProperty('unstable');
  expect(requestsFor('split')).toHaveLength(3);
  expect(cases.split).toMatchObject({ verdict: 'pass', unstable: true });
  expect(cases.split!.evaluators[0]!.checks![0]).toMatchObject({
    votes: '2/3',
    satisfied: true,
    unstable: true,
  });
  expect(results.usage.judge_calls).toBe(8);
});

test('auto with a cache: a re-run takes every sample from the cache (0 calls) and gives the same results', async () => {
  server = await startOpenAIServer({ respond: noisyChecklist({ seed: 5 }) });
  const root = suite({
    a: items(0.9, 0.9, 0.9),
    b: items(0.9, 1, 0.1),
    c: items(1, 1, 1, 1),
    d: items(0.5, 0.5),
  });
  const over: Partial<Config> = {
    judgeSamples: 'auto',
    cacheDir: path.join(root, 'cache'),
    cacheMode: 'readwrite',
  };
  const first = await run(root, over);
  const calls = server.state.requests.length;
  expect(calls).toBeGreaterThan(4);
  const second = await run(root, over);
  expect(server.state.requests).toHaveLength(calls);
  expect(second.results.usage).toMatchObject({ judge_calls: 0, cached_calls: calls });
  const strip = (cs: Record<string, CaseResult>) =>
    Object.values(cs).map((c) => ({
      ...c,
      duration_ms: 0,
      usage: undefined,
      evaluators: c.evaluators.map((e) => ({ ...e, usage: undefined })),
    }));
  expect(strip(second.cases)).toEqual(strip(first.cases));
});

test('a sample that fails makes the evaluator an error, never a pass, and its usage counts every sample', async () => {
  server = await startOpenAIServer({
    respond: ({ body }) => (body.seed === 43 ? { content: 'not json' } : undefined),
  });
  const root = suite({ c: items(1, 1) });
  const { cases, results } = await run(root, { judgeSamples: 3 });
  expect(cases.c!.verdict).toBe('error');
  expect(cases.c!.evaluators[0]!.error).toMatch(/judge answer invalid/);
  // Samples 0 and 2 once each; sample 1 asked and re-asked twice.
  expect(server.state.requests).toHaveLength(5);
  expect(results.usage.judge_calls).toBe(5);
});

test('an endpoint that rejects temperature: dropped (as for one sample), the samples still taken', async () => {
  const warnings: string[] = [];
  server = await startOpenAIServer({
    reject: (body) =>
      body.temperature !== undefined && body.temperature > 0
        ? {
            status: 400,
            body: { error: { message: 'Unsupported value: temperature', param: 'temperature' } },
          }
        : undefined,
  });
  const root = suite({ c: items(1, 1) });
  const outcome = await runEvaluation(
    engineConfig(root, server.url, { suites: ['suite.yaml'], judgeSamples: 3 }),
    { env: {}, hooks: { warn: (m) => warnings.push(m) } },
  );
  const e = outcome.results.suites[0]!.cases[0]!.evaluators[0]!;
  expect(e).toMatchObject({ verdict: 'pass', samples: 3 });
  expect(warnings.join('\n')).toMatch(/temperature dropped/);
  expect(server.state.requests.filter((r) => r.body.temperature === undefined).length).toBeGreaterThanOrEqual(
    2,
  );
});

test('composites: children and an llm_judge aggregator are sampled; the aggregator score is the median', async () => {
  const scores: Record<number, number> = { 42: 0.9, 43: 0.4, 44: 0.8 };
  server = await startOpenAIServer({
    respond: ({ body, desc }) =>
      desc.mode === 'freeform' && desc.text.includes('Combine the child')
        ? { score: scores[body.seed], hits: [], misses: [], reasoning: `agg ${body.seed}` }
        : undefined,
  });
  const root = suite({
    comp:
      [
        '    execution:',
        '      evaluators:',
        '        - name: combo',
        '          type: composite',
        '          evaluators:',
        '            - name: list',
        '              type: llm_judge',
        '              rubrics: [Item one, Item two]',
        '          aggregator:',
        '            type: llm_judge',
      ].join('\n') + '\n',
  });
  const { cases } = await run(root, { judgeSamples: 3 });
  const combo = cases.comp!.evaluators[0]!;
  expect(combo).toMatchObject({
    score: 0.8,
    samples: 3,
    sample_scores: [0.9, 0.4, 0.8],
    reasoning: 'agg 44',
  });
  expect(combo.children![0]).toMatchObject({ samples: 3 });
  expect(combo.usage!.judge_calls).toBe(6);
});

test('auto on a composite: a child and an aggregator not in doubt take one sample each', async () => {
  server = await startOpenAIServer({
    respond: ({ desc }) =>
      desc.mode === 'freeform' ? { score: 0.95, hits: [], misses: [], reasoning: 'combined' } : undefined,
  });
  const root = suite({
    comp:
      [
        '    execution:',
        '      evaluators:',
        '        - name: combo',
        '          type: composite',
        '          evaluators:',
        '            - name: list',
        '              type: llm_judge',
        '              rubrics: [Item one, Item two]',
        '          aggregator:',
        '            type: llm_judge',
      ].join('\n') + '\n',
  });
  const { cases, results } = await run(root, { judgeSamples: 'auto' });
  const combo = cases.comp!.evaluators[0]!;
  // The child passes on two required items: a false "met" is unlikely (doubt 0.04), so the case
  // does not ask again by itself; the aggregator's 0.95 is a pass one step (0.1) cannot move. The
  // run's leftover budget (2 first calls, none after) then confirms the child once: 2/2 votes.
  expect(combo.children![0]).toMatchObject({ samples: 2, verdict: 'pass' });
  expect(combo).toMatchObject({ samples: 1, sample_scores: [0.95], verdict: 'pass' });
  expect(server.state.requests).toHaveLength(3);
  expect(results.usage.judge_calls).toBe(3);
});

test('auto on a composite: a split child stays at its tie when its next sample, with the aggregator asked again, would take the run past twice its first calls', async () => {
  server = await startOpenAIServer({
    respond: ({ body, desc }) =>
      desc.mode === 'freeform'
        ? { score: 0.95, hits: [], misses: [], reasoning: 'combined' }
        : {
            // The child's required item is missed by the first sample only.
            checks: desc.ids.map((id) => ({
              id,
              reasoning: `seed ${body.seed}`,
              satisfied: body.seed !== 42,
            })),
            overall_reasoning: 'x',
          },
  });
  const root = suite({
    comp:
      [
        '    execution:',
        '      evaluators:',
        '        - name: combo',
        '          type: composite',
        '          evaluators:',
        '            - name: list',
        '              type: llm_judge',
        '              rubrics: [Item one]',
        '          aggregator:',
        '            type: llm_judge',
      ].join('\n') + '\n',
  });
  const { cases, results } = await run(root, { judgeSamples: 'auto' });
  const combo = cases.comp!.evaluators[0]!;
  // 0/1, then 1/2 (a tie: still failing): a checklist judge takes at most 2 samples by its case's
  // own doubt when the run tops up. The run's first calls were 2 (the child and the aggregator),
  // so it may make 4: 1 is left, and the child's third sample could cost 2 (the aggregator asked
  // again on the child's new result), so it is not taken. The tie is not satisfied, and said.
  expect(combo.children![0]!.checks![0]).toMatchObject({ votes: '1/2', satisfied: false, unstable: true });
  expect(combo).toMatchObject({ verdict: 'fail', samples: 1, sample_scores: [0.95] });
  const aggregatorCalls = server.state.requests.filter(
    (r) => r.body.response_format.json_schema.name === 'score_verdict',
  );
  expect(aggregatorCalls).toHaveLength(1);
  expect(server.state.requests).toHaveLength(3);
  expect(combo.usage!.judge_calls).toBe(3);
  expect(results.usage.judge_calls).toBe(3);
  expect(cases.comp!.unstable).toBe(true);
});
