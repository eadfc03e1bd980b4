import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeGitHub, startGitHubServer } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { type ActionRun, runAction } from '../helpers/action.js';
import { hostileRepo, readResults } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';
import {
  bundle,
  HEAD,
  judgeInputs,
  PR,
  recordArtifact,
  workflowRunEvent,
  zipOf,
} from '../helpers/trusted-stage.js';

/**
 * Cancel during load (docs/cancel-during-load.md), through dist/index.js:
 * a suite of many distinct patterns, each just under the per-pattern state limit, must not hold
 * the process past a SIGINT, in `stage: all` and in the judge stage, whose status must not stay
 * `pending`.
 */

let judge: FakeOpenAI | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await judge?.close();
  await github?.close();
  judge = github = undefined;
});

/** About 19,000 automaton states each (the per-pattern limit is 20,000), distinct by a prefix. */
const heavy = (i: number) => `h${i}${'[a-z]{1000}'.repeat(19)}`;
const PATTERNS = 1500;

/** A tests-format suite: `ids` first (plain), then one test per heavy pattern. */
function heavySuite(ids: string[], patterns: number): string {
  const lines = ['prompts: ["{{ q }}"]', 'tests:'];
  for (const id of ids) lines.push(`  - id: ${id}`, `    vars: { q: Question ${id} }`);
  for (let i = 0; i < patterns; i++)
    lines.push(
      `  - id: p${i}`,
      `    vars: { q: q${i} }`,
      '    assert:',
      `      - { type: regex, value: ${JSON.stringify(heavy(i))} }`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Runs the action and sends SIGINT once `ready` says so (polled; by then the signal handlers are
 * installed), `delayMs` later; how long the process lived after the signal (0 when it had
 * already ended).
 */
async function cancelWhen(
  ready: (log: string) => boolean,
  delayMs: number,
  opts: Omit<Parameters<typeof runAction>[0], 'onStart' | 'onStdout'>,
): Promise<{ run: ActionRun; exitedAfterMs: number }> {
  let sentAt = 0;
  let log = '';
  let poll: NodeJS.Timeout | undefined;
  const run = await runAction({
    ...opts,
    timeoutMs: 90_000,
    onStdout: (chunk) => (log += chunk),
    onStart: (pid) => {
      poll = setInterval(() => {
        if (!ready(log)) return;
        clearInterval(poll);
        setTimeout(() => {
          sentAt = Date.now();
          try {
            process.kill(pid, 'SIGINT');
          } catch {
            // Already ended.
          }
        }, delayMs);
      }, 20);
    },
  });
  clearInterval(poll);
  expect(sentAt).toBeGreaterThan(0);
  return { run, exitedAfterMs: Date.now() - sentAt };
}

test('stage all: 1,500 distinct heavy patterns, SIGINT during load → exits within 5 s, results written, an error', async () => {
  const workspace = hostileRepo({ suite: heavySuite([], PATTERNS) });
  const { run, exitedAfterMs } = await cancelWhen((log) => log.includes('::group::Load and validate'), 0, {
    workspace,
    inputs: { suites: 'suite.yaml', 'judge-base-url': 'http://127.0.0.1:9', 'judge-api-key': 'sk-load-0001' },
    eventName: 'push',
  });
  expect(exitedAfterMs).toBeLessThan(5000);
  expect(run.code).not.toBe(0);
  expect(existsSync(path.join(workspace, 'rubric-eval-results.json'))).toBe(true);
  const r = readResults(workspace);
  expect(r.verdict).not.toBe('pass');
  // Either the signal stopped the load, or the load ended first on the run's pattern limit;
  // each way the error says which, at the suite file (a located error, rule `regex`).
  expect(r.errors.join('\n')).toMatch(
    /suite\.yaml:\d+:\d+ test 'p\d+': regex: .* is not compiled: .*run's limit of 400000|cancelled while loading suites/,
  );
}, 120_000);

test('stage all: many large suite files, SIGINT during load → no further file is read; partial results within 5 s', async () => {
  // 30 files of ~1 MB of plain cases: seconds of loading in all, a fraction of one per file.
  const files: Record<string, string> = {};
  for (let f = 0; f < 30; f++) {
    const lines = ['evalcases:'];
    for (let i = 0; i < 7000; i++)
      lines.push(
        `  - id: f${f}c${i}`,
        `    input: Question ${i} of file ${f} about refunds`,
        '    rubrics: [Answers well]',
      );
    files[`suite-${String(f).padStart(2, '0')}.yaml`] = `${lines.join('\n')}\n`;
  }
  const workspace = hostileRepo({ files });
  const { run, exitedAfterMs } = await cancelWhen((log) => log.includes('::group::Load and validate'), 300, {
    workspace,
    inputs: {
      suites: 'suite-*.yaml',
      'judge-base-url': 'http://127.0.0.1:9',
      'judge-api-key': 'sk-load-0002',
    },
    eventName: 'push',
  });
  expect(exitedAfterMs).toBeLessThan(5000);
  expect(run.code).not.toBe(0);
  const r = readResults(workspace);
  expect(r.partial).toBe(true);
  expect(r.verdict).toBe('fail');
  expect(r.errors.join('\n')).toMatch(/the run was cancelled while loading suites: \d+ of 30 loaded/);
}, 120_000);

describe('the judge stage', () => {
  /** The base answers its cases with a model-only target; the head's suite adds heavy patterns. */
  async function judgeStage(headSuite: string) {
    judge = await startOpenAIServer({
      // Slow answers: a run that loads quickly is still answering when the signal comes.
      latencyMs: 1500,
      respond: ({ desc }) => (desc.mode === 'chat' ? 'GOOD answer' : undefined),
    });
    const workspace = path.join(tmpDir('re-load-cancel-'), 'base');
    mkdirSync(path.join(workspace, 'evals'), { recursive: true });
    const ids = ['alpha', 'beta', 'gamma', 'delta'];
    writeFileSync(
      path.join(workspace, 'evals/model.yaml'),
      [
        'evalcases:',
        ...ids.flatMap((id) => [`  - id: ${id}`, `    input: Question ${id}`, '    rubrics: [Answers well]']),
      ]
        .join('\n')
        .concat('\n'),
    );
    writeFileSync(
      path.join(workspace, 'targets.yaml'),
      `targets:\n  - name: default\n    provider: openai\n    endpoint: ${judge.url}\n    api_key: \${{ APP_KEY }}\n    model: app-model\n`,
    );
    github = await startGitHubServer({
      artifacts: recordArtifact(zipOf(JSON.stringify(bundle({ answers: [], gates: [] })))),
      pulls: [PR],
      files: { [`octo/repo@${HEAD}:evals/model.yaml`]: headSuite },
    });
    // The signal comes while the head's suite loads: just after the stage has read it.
    const readHead = () =>
      github!.state.requests.some((q: { path: string }) =>
        decodeURIComponent(q.path).endsWith('/contents/evals/model.yaml'),
      );
    const { run, exitedAfterMs } = await cancelWhen(readHead, 200, {
      workspace,
      eventName: 'workflow_run',
      event: workflowRunEvent(),
      inputs: { ...judgeInputs(judge.url), rubric: '', concurrency: '1' },
      env: { APP_KEY: 'app-key-123456' },
      apiUrl: github.url,
    });
    return { run, exitedAfterMs, workspace, ids, statuses: github.state.trusted.statuses };
  }

  test('a head suite of 1,500 heavy patterns, SIGINT → exits within 5 s; the last status is error saying it was cancelled, never pending', async () => {
    const { run, exitedAfterMs, workspace, statuses } = await judgeStage(
      heavySuite(['alpha', 'beta', 'gamma', 'delta'], PATTERNS),
    );
    expect(exitedAfterMs).toBeLessThan(5000);
    expect(run.code).not.toBe(0);
    const r = readResults(workspace);
    expect(r.verdict).not.toBe('pass');
    expect(r.partial).toBe(true);
    expect(statuses.map((s) => s.state)).toEqual(['pending', 'error']);
    expect(statuses.at(-1)!.description).toBe('rubric-eval: cancelled before every case was judged');
  }, 120_000);
});
