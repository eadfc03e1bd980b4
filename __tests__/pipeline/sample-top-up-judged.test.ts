import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type Config } from '../../src/config/config.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { refundSuite } from '../helpers/refund-suite.js';

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const suite = (cases: Record<string, string>) => refundSuite(cases, 're-top-up-');

const composite =
  [
    '    execution:',
    '      evaluators:',
    '        - name: combo',
    '          type: composite',
    '          evaluators:',
    '            - name: list',
    '              type: llm_judge',
    '              rubrics: [Item one, Item two, Item three]',
    '          aggregator:',
    '            type: llm_judge',
  ].join('\n') + '\n';

const infos: string[] = [];
let atTopUp = -1;
async function run(root: string, over: Partial<Config> = {}) {
  infos.length = 0;
  atTopUp = -1;
  const outcome = await runEvaluation(engineConfig(root, server!.url, { suites: ['suite.yaml'], ...over }), {
    env: {},
    hooks: {
      progress: (p) => {
        if (p.done === p.total) atTopUp = server!.state.requests.length;
      },
      info: (m) => infos.push(m),
    },
  });
  return outcome.results;
}

test("a child's varied reasoning alone does not ask the judge aggregator above it again", async () => {
  server = await startOpenAIServer({
    respond: ({ body, desc }) =>
      desc.mode === 'freeform'
        ? { score: 0.95, hits: [], misses: [], reasoning: 'combined' }
        : {
            // every item met, but each sample words its reasoning differently (as real judges do)
            checks: desc.ids.map((id) => ({ id, reasoning: `seed ${body.seed}`, satisfied: true })),
            overall_reasoning: `overall ${body.seed}`,
          },
  });
  const root = suite({ a: composite, b: composite });
  const results = await run(root, { judgeSamples: 'auto' });
  const aggregatorCalls = server.state.requests.filter(
    (r) => r.body.response_format.json_schema.name === 'score_verdict',
  ).length;
  // first samples: 2 per case (child + aggregator) = 4; README: at most 2x = 8 calls in all.
  console.log('calls', server.state.requests.length, 'aggregator calls', aggregatorCalls);
  console.log(JSON.stringify(results.suites[0]!.cases.map((c) => c.evaluators[0]!.samples)));
  expect(server.state.requests.length).toBeLessThanOrEqual(8);
});

test('a leftover sample that flips a child and re-asks the aggregator costs 2 calls, within 2x the first', async () => {
  server = await startOpenAIServer({
    respond: ({ body, desc }) =>
      desc.mode === 'freeform'
        ? {
            score: desc.text.includes('"verdict": "fail"') || /fail/.test(desc.text) ? 0.2 : 0.95,
            hits: [],
            misses: [],
            reasoning: 'combined',
          }
        : {
            // the first sample says every item is met; later ones that item one is not
            checks: desc.ids.map((id) => ({
              id,
              reasoning: 'x',
              satisfied: id !== 'rubric-1' || body.seed === 42,
            })),
            overall_reasoning: 'x',
          },
  });
  const root = suite({ a: composite });
  const results = await run(root, { judgeSamples: 'auto' });
  const aggregatorCalls = server.state.requests.filter(
    (r) => r.body.response_format.json_schema.name === 'score_verdict',
  ).length;
  const c = results.suites[0]!.cases[0]!;
  console.log(
    'calls',
    server.state.requests.length,
    'aggregator calls',
    aggregatorCalls,
    c.verdict,
    c.evaluators[0]!.samples,
    c.evaluators[0]!.children![0]!.samples,
  );
  // first samples: child + aggregator = 2; README: the top-up stops at 2x = 4 calls in all.
  expect(server.state.requests.length).toBeLessThanOrEqual(4);
});

test('leftover samples that each re-ask a judge aggregator never take the run past 2x its first calls', async () => {
  server = await startOpenAIServer({
    respond: ({ body, desc }) =>
      desc.mode === 'freeform'
        ? { score: 0.95, hits: [], misses: [], reasoning: 'combined' }
        : {
            // case a: item one met on even seeds only (the samples keep splitting); others: all missed
            checks: desc.ids.map((id) => ({
              id,
              reasoning: 'x',
              satisfied: desc.text.includes('[a]') ? id !== 'rubric-1' || body.seed % 2 === 0 : false,
            })),
            overall_reasoning: 'x',
          },
  });
  const dead = '    rubrics:\n' + [1, 2, 3, 4, 5].map((i) => `      - Item ${i}\n`).join('');
  const root = suite({ a: composite, d1: dead, d2: dead, d3: dead, d4: dead });
  const results = await run(root, { judgeSamples: 'auto' });
  const aggregatorCalls = server.state.requests.filter(
    (r) => r.body.response_format.json_schema.name === 'score_verdict',
  ).length;
  const c = results.suites[0]!.cases[0]!;
  console.log(
    'calls',
    server.state.requests.length,
    'aggregator calls',
    aggregatorCalls,
    c.verdict,
    c.evaluators[0]!.samples,
    c.evaluators[0]!.children![0]!.samples,
    results.usage.judge_calls,
  );
  console.log(
    infos.filter((m) => m.includes('leftover')),
    'calls before the top-up',
    atTopUp,
  );
  // first samples: a's child + aggregator, and one per dead case = 6. The cases asked for
  // atTopUp - 6 more; the top-up may add at most 2x6 - atTopUp (README: a run ends at 2x).
  expect(atTopUp).toBeLessThan(12);
  expect(server.state.requests.length).toBeLessThanOrEqual(12);
});

test("a leftover sample that fails: the case stays as decided and its calls are in the run's usage", async () => {
  let firstPhase = true;
  server = await startOpenAIServer({
    respond: ({ desc }) => {
      if (!firstPhase) return { content: 'not json' };
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: 'x', satisfied: true })),
        overall_reasoning: 'x',
      };
    },
  });
  const three = '    rubrics:\n' + [1, 2, 3].map((i) => `      - Item ${i}\n`).join('');
  const root = suite({ a: three, b: three });
  const outcome = await runEvaluation(
    engineConfig(root, server.url, { suites: ['suite.yaml'], judgeSamples: 'auto' }),
    {
      env: {},
      hooks: { progress: (p) => void (p.done === p.total && (firstPhase = false)) },
    },
  );
  const made = server.state.requests.length;
  console.log(
    'requests',
    made,
    'reported judge_calls',
    outcome.results.usage.judge_calls,
    outcome.results.suites[0]!.cases.map((c) => c.verdict),
  );
  expect(made).toBeGreaterThan(2);
  // the failed top-up samples (and their retries) were paid for; the results report none of them
  expect(outcome.results.usage.judge_calls).toBeGreaterThan(2);
});

test('an errored case takes no leftover sample', async () => {
  server = await startOpenAIServer({
    respond: ({ desc }) => ({
      checks: desc.ids.map((id) => ({ id, reasoning: 'x', satisfied: true })),
      overall_reasoning: 'x',
    }),
  });
  const block =
    [
      '    execution:',
      '      evaluators:',
      '        - name: list',
      '          type: llm_judge',
      '          rubrics: [Item one, Item two, Item three]',
      '        - name: crash',
      '          type: code_judge',
      '          script: [no-such-interpreter-xyz, --version]',
    ].join('\n') + '\n';
  const root = suite({ broken: block });
  const results = await run(root, { judgeSamples: 'auto' });
  const c = results.suites[0]!.cases[0]!;
  console.log('requests', server.state.requests.length, c.verdict, infos);
  expect(c.verdict).toBe('error');
  // the case was an error before any top-up: a further sample can only cost
  expect(server.state.requests.length).toBe(1);
});
