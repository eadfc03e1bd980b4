// The HTML report at scale (`npm run bench -- --only=html`): the bundled CLI runs N cases against a
// judge that fails 30% of them with reasons of a realistic length and writes `--html`; the file's
// size, then the time from opening it in headless Chromium to the first failing case on screen.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { startOpenAIServer } from '../__fixtures__/servers/openai-server.mjs';
import { HAS_BROWSER, openChromium } from '../__fixtures__/servers/chromium.mjs';

const REASON =
  'The answer explains where to request the refund, but it never says how long the refund takes to arrive, which the rubric item requires; a customer would have to ask again.';

/** Fails two of the five items for every case whose ticket number ends in 0, 1 or 2. */
function judge() {
  return startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode !== 'checklist') return undefined;
      const ticket = Number(/\[ticket (\d+)\]/.exec(desc.text)?.[1] ?? 0);
      const failing = ticket % 10 < 3;
      return {
        checks: desc.ids.map((id, i) => ({
          id,
          satisfied: !(failing && i >= 2 && i < 4),
          reasoning:
            failing && i >= 2 && i < 4 ? REASON : `Meets ${id}: the answer covers it clearly and correctly.`,
        })),
        overall_reasoning: failing ? 'Two items are missing.' : 'All items are met.',
      };
    },
  });
}

function run(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`exit ${code}: ${stderr.slice(-1000)}`)),
    );
  });
}

/**
 * { mb, openMs[] , cases, failing } for N cases; openMs is null when no browser is installed.
 * `makeSuite(dir, n)` is bench.mjs's synthetic suite (a mock target, a 5-item checklist).
 */
export async function scenarioHtml({ n, runs, node, cli, makeSuite }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rubric-bench-html-'));
  makeSuite(dir, n);
  const server = await judge();
  const file = path.join(dir, 'report.html');
  try {
    await run(
      node,
      [
        cli,
        'run',
        'suite.yaml',
        '--judge-base-url',
        server.url,
        '--concurrency',
        '64',
        '--no-cache',
        '--fail-on',
        'never',
        '--html',
        file,
        '--format',
        'json',
      ],
      { cwd: dir, env: { PATH: process.env.PATH, RUBRIC_EVAL_JUDGE_API_KEY: 'bench-key-000000-000000' } },
    );
  } finally {
    await server.close();
  }
  const mb = statSync(file).size / 1024 / 1024;
  const openMs = HAS_BROWSER ? await timeToFirstFailing(file, runs) : null;
  rmSync(dir, { recursive: true, force: true });
  return { mb, openMs };
}

/** Wall time from navigation start to the first failing case in the list, in a fresh profile each run. */
async function timeToFirstFailing(file, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const context = await openChromium();
    try {
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: 'commit' });
      await page.locator('#cases > li .v-fail').first().waitFor({ timeout: 60_000 });
      times.push(performance.now() - started);
    } finally {
      await context.close();
    }
  }
  return times;
}
