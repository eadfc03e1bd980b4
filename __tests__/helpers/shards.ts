import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { tmpDir } from './judge.js';

/**
 * Twelve cases over two suites (listed b before a, so load order and plan order differ), answered
 * by a mock target: checklist cases pass when the answer says "good", range cases score 7 or 9.
 */
export function twelveCaseRepo(): string {
  const root = tmpDir('re-shards-');
  mkdirSync(path.join(root, 'evals'), { recursive: true });
  const answers: Record<string, string> = {};
  const suite = (prefix: string, n: number) => {
    const lines = ['description: generated', 'evalcases:'];
    for (let i = 1; i <= n; i++) {
      const id = `${prefix}-${i}`;
      answers[id] =
        i % 3 === 0 ? `a poor answer ${id}` : i % 4 === 0 ? `an ok answer ${id}` : `a good answer ${id}`;
      lines.push(`  - id: ${id}`, `    expected_outcome: Answers ${id}`, `    input: Question ${id}?`);
      if (i % 2 === 0)
        lines.push('    rubrics:', `      - id: quality`, '        score_ranges: {0: Bad, 5: Fair, 8: Good}');
      else
        lines.push(
          '    rubrics:',
          '      - id: says-good',
          '        outcome: Says good',
          '        required: true',
          '      - Is short',
        );
    }
    return `${lines.join('\n')}\n`;
  };
  writeFileSync(path.join(root, 'evals/b.yaml'), suite('b', 5));
  writeFileSync(path.join(root, 'evals/a.yaml'), suite('a', 7));
  writeFileSync(
    path.join(root, 'targets.yaml'),
    `targets:\n  - name: default\n    provider: mock\n    responses:\n${Object.entries(answers)
      .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
  writeFileSync(
    path.join(root, 'RUBRIC.md'),
    '# Change\n\n## Gates\n- `node -e "console.log(\'lint ok\')"`\n\n## Criteria\n- The change is small\n',
  );
  return root;
}

export const TWELVE_SUITES = 'evals/b.yaml\nevals/a.yaml';

/** A judge whose verdicts depend only on the answer in the request, never on call order. */
export function startAnswerJudge(latencyMs = 0) {
  return startOpenAIServer({
    latencyMs,
    respond: ({ desc }) => {
      const answer =
        /<<<CANDIDATE_ANSWER [0-9a-f]+ [^\n]*\n([\s\S]*?)\n<<<END CANDIDATE_ANSWER/.exec(desc.text)?.[1] ??
        '';
      if (desc.mode === 'checklist')
        return {
          checks: desc.ids.map((id) => ({
            id,
            reasoning: `judged ${id}`,
            satisfied: /good/.test(answer) || id !== 'says-good',
          })),
          overall_reasoning: 'checked',
        };
      if (desc.mode === 'score_range')
        return {
          checks: desc.ids.map((id) => ({ id, reasoning: 'scored', score: /ok/.test(answer) ? 7 : 9 })),
          overall_reasoning: null,
        };
      return undefined;
    },
  });
}

/** The results without what depends on the clock or on how the run was split. */
export function comparable(r: RunResults): unknown {
  const c = structuredClone(r) as unknown as Record<string, unknown> & RunResults;
  delete (c as Partial<RunResults>).started_at;
  delete (c as Partial<RunResults>).duration_ms;
  delete c.shard;
  delete c.shards;
  if (c.judge_stats) delete (c.judge_stats as Partial<NonNullable<RunResults['judge_stats']>>).peak_in_flight;
  for (const h of c.history) delete (h as Partial<typeof h>).at;
  for (const s of c.suites) for (const k of s.cases) delete (k as Partial<typeof k>).duration_ms;
  for (const g of c.rubric?.gates ?? []) delete (g as Partial<typeof g>).duration_ms;
  return c;
}
