import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { renderReport } from '../../src/report/comment-body.js';
import { type CaseResult, type EvaluatorResult } from '../../src/core/results.js';
import { judgeSplit, sampleCounts } from '../../src/report/samples.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';

let server: FakeOpenAI | undefined;
afterEach(() => server?.close());

// Three samples; in case "split" the judge finds rubric-2 met only in the first sample, in case
// "close" rubric-1 is missed only in the second.
async function sampledRun() {
  server = await startOpenAIServer({
    respond: ({ body, desc }) => ({
      checks: desc.ids.map((id) => {
        const split = desc.text.includes('[split]') && id === 'rubric-2' && body.seed !== 42;
        const close = desc.text.includes('[close]') && id === 'rubric-1' && body.seed === 43;
        return { id, reasoning: `${id} judged in sample ${body.seed - 42}`, satisfied: !split && !close };
      }),
      overall_reasoning: 'judged',
    }),
  });
  const root = tmpDir('re-report-samples-');
  writeFileSync(
    path.join(root, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: mock\n    response: An answer.\n',
  );
  const cases = ['split', 'close', 'steady']
    .map((id) => `  - id: ${id}\n    input: "[${id}] A question"\n    rubrics: [First point, Second point]`)
    .join('\n');
  writeFileSync(path.join(root, 'suite.yaml'), `evalcases:\n${cases}\n`);
  const { results } = await runEvaluation(
    engineConfig(root, server.url, { suites: ['suite.yaml'], judgeSamples: 3 }),
    { env: {} },
  );
  return results;
}

test('the comment marks split cases, shows votes in the reasons and counts the extra samples', async () => {
  const results = await sampledRun();
  const byId = Object.fromEntries(results.suites[0]!.cases.map((c) => [c.id, c]));
  expect(judgeSplit(byId.split!)).toBe('judge split 1/3');
  expect(judgeSplit(byId.close!)).toBe('judge split 2/3');
  expect(judgeSplit(byId.steady!)).toBeNull();
  expect(sampleCounts(results)).toEqual({ extra: 6, unstable: 2 });

  const md = renderReport(results, { sticky: true });
  expect(md).toContain('| ❌ | `split` · _judge split 1/3_ |');
  expect(md).toContain('| ✅ | `close` · _judge split 2/3_ |');
  expect(md).toMatch(/\| ✅ \| `steady` \| 1\.00 \|/);
  // The reason line is quoted text, made inert: brackets are escaped (shown as `[votes 1/3]`).
  expect(md).toContain(
    '- rubric › rubric-2 "Second point" (required) \\[votes 1/3\\]: rubric-2 judged in sample 1',
  );
  expect(md).toContain('9 judge calls · 6 extra judge samples · 2 cases split ·');

  const term = renderTerminal(results);
  expect(term).toMatch(/fail\s+0\.50\s+split\s+checklist 1\/2\s+judge split 1\/3/);
  expect(term).toContain(
    'rubric › rubric-2 "Second point" (required) [votes 1/3]: rubric-2 judged in sample 1',
  );
  expect(term).toContain('9 judge calls · 6 extra judge samples · 2 cases split ·');
});

test('judge split names what split: a child check under a composite, or the aggregator score', () => {
  const child: EvaluatorResult = {
    name: 'list',
    type: 'llm_judge',
    weight: 1,
    mode: 'checklist',
    score: 1,
    verdict: 'pass',
    gating_violations: [],
    samples: 3,
    unstable: true,
    checks: [
      { id: 'a', satisfied: true, weight: 1, required: true, reasoning: null, votes: '2/3', unstable: true },
    ],
  };
  const composite = (over: Partial<EvaluatorResult>): EvaluatorResult => ({
    name: 'combo',
    type: 'composite',
    weight: 1,
    mode: 'aggregate',
    score: 0.9,
    verdict: 'pass',
    gating_violations: [],
    unstable: true,
    samples: 3,
    sample_scores: [0.9, 0.9, 0.9],
    children: [child],
    ...over,
  });
  const kase = (e: EvaluatorResult): CaseResult => ({
    id: 'c',
    verdict: 'pass',
    score: 0.9,
    gating_violations: [],
    evaluators: [e],
    target: null,
    answer: null,
    duration_ms: 0,
    unstable: true,
  });
  expect(judgeSplit(kase(composite({})))).toBe('judge split 2/3');
  const aggSplit = composite({
    sample_scores: [0.5, 0.9, 0.85],
    children: [{ ...child, unstable: undefined, checks: [] }],
  });
  expect(judgeSplit(kase(aggSplit))).toBe('judge split 0.50·0.90·0.85');
});
