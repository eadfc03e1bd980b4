import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type RunResults } from '../../src/core/results.js';
import { runAction } from '../helpers/action.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

function slowRepo(n: number): string {
  const root = tmpDir('re-cancel-');
  writeFileSync(
    path.join(root, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: mock\n    response: "ok"\n',
  );
  const lines = ['evalcases:'];
  for (let i = 0; i < n; i++) lines.push(`  - id: c${i}`, `    input: q${i}`, '    rubrics: [Answers]');
  writeFileSync(path.join(root, 'suite.yaml'), lines.join('\n') + '\n');
  writeFileSync(path.join(root, 'RUBRIC.md'), '## Gates\n- `sleep 60`\n');
  return root;
}

test.each(['SIGINT', 'SIGTERM'] as const)(
  '%s mid-run: stops new calls, writes partial results and the summary, exits non-zero within 5 s',
  async (signal) => {
    judge = await startOpenAIServer({ latencyMs: 400 });
    const workspace = slowRepo(200);
    let sentAt = 0;
    const run = await runAction({
      workspace,
      inputs: {
        suites: 'suite.yaml',
        rubric: 'RUBRIC.md',
        'judge-base-url': judge.url,
        'judge-api-key': 'sk-cancel-0000',
        concurrency: '4',
        'cache-dir': '',
      },
      eventName: 'push',
      // Signal once some cases are done (not after a fixed delay: a loaded machine starts slower).
      onStart: (pid) => {
        const poll = setInterval(() => {
          if (judge.state.served < 8) return;
          clearInterval(poll);
          sentAt = Date.now();
          process.kill(pid, signal);
        }, 50);
      },
    });
    const exitedAfter = Date.now() - sentAt;
    expect(run.code).not.toBe(0);
    expect(exitedAfter).toBeLessThan(5000);
    const r = JSON.parse(
      readFileSync(path.join(workspace, 'rubric-eval-results.json'), 'utf8'),
    ) as RunResults;
    expect(r.partial).toBe(true);
    expect(r.verdict).toBe('fail');
    const done = r.suites[0]!.cases;
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(200);
    expect(done.every((c) => c.verdict === 'pass')).toBe(true);
    // No new calls after the signal (in-flight ones were aborted).
    const after = judge.state.requests.filter((q) => q.at > sentAt + 200);
    expect(after).toEqual([]);
    expect(run.summary).toContain('The run was cancelled');
    expect(run.stdout).toContain(`::warning::${signal} received`);
  },
);
