import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RunResults } from '../../src/core/results.js';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { CHROMIUM, HAS_BROWSER, openChromium } from '../../__fixtures__/servers/chromium.mjs';
import { tmpDir } from '../helpers/judge.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { resultsOf } from '../helpers/results.js';

const HOSTILE_ANSWER =
  'Sure! <img src=x onerror="window.__pwned = 1"> and <script>window.__pwned2 = 1</script></script><!-- and @octocat';

/** A run with a baseline, a rubric with a failed gate, an effect, and hostile text everywhere it can be. */
function hostileRun(): RunResults {
  const r = resultsOf([
    ['evals/qa.yaml', 'capital-of-france', 'pass', 1],
    ['evals/qa.yaml', 'hostile <b>case</b>', 'fail', 0.2],
    ['evals/qa.yaml', 'explain-quicksort', 'borderline', 0.65],
    ['evals/more.yaml', 'stays-good', 'pass', 0.9],
    ['evals/more.yaml', 'errored', 'error', 0],
  ]);
  const [qa, more] = r.suites as [RunResults['suites'][0], RunResults['suites'][0]];
  qa.cases[0]!.answer = 'Paris is the capital of France.';
  const bad = qa.cases[1]!;
  bad.answer = HOSTILE_ANSWER;
  bad.evaluators = [
    {
      name: 'rubric',
      type: 'llm_judge',
      weight: 1,
      score: 0.2,
      verdict: 'fail',
      mode: 'checklist',
      gating_violations: ['names-paris: required item not satisfied'],
      checks: [
        {
          id: 'names-paris',
          text: 'Says <i>Paris</i>',
          satisfied: false,
          weight: 1,
          required: true,
          reasoning: 'The answer injects <img src=x onerror="window.__pwned3=1">',
        },
      ],
    },
  ];
  qa.cases[2]!.answer = 'Quicksort partitions around a pivot.';
  more.cases[1]!.error = 'target exited 1: <script>window.__pwned4=1</script>';
  for (const c of [...qa.cases, ...more.cases])
    c.baseline = { verdict: 'pass', score: 1, change: c.verdict === 'pass' ? 'same' : 'regressed' };
  // A base answer where the base's results hold one (shown beside this run's).
  bad.baseline!.answer = 'Paris.';
  r.baseline = {
    source: 'artifact',
    commit: 'f00dfeed1234567',
    run_id: 1,
    run_url: null,
    artifact_id: 2,
    created_at: null,
    file: 'rubric-eval-results.json',
    margin: 0.1,
    changes: { new: 0, redefined: 0, broken: 1, fixed: 0, regressed: 2, improved: 0, same: 2, removed: 0 },
    removed: [],
  };
  r.rubric = {
    path: 'RUBRIC.md',
    title: null,
    hash: 'h',
    verdict: 'fail',
    score: 0.5,
    gates: [
      {
        command: 'npm test',
        verdict: 'fail',
        exit_code: 1,
        timed_out: false,
        duration_ms: 5,
        output: 'FAIL <script>window.__pwned5=1</script>',
        line: 4,
      },
    ],
    checks: [{ id: 'must-1', kind: 'must', text: 'Handles errors', satisfied: true, reasoning: 'ok' }],
    judge_verdict: 'accept',
    feedback: null,
    counts: { gates_passed: 0, gates_total: 1, must_passed: 1, must_total: 1, nice_passed: 0, nice_total: 0 },
  };
  const row = {
    metric: 'pass' as const,
    n: 5,
    clusters: 5,
    base_mean: 1,
    head_mean: 0.4,
    delta: -0.6,
    delta_low: -0.9,
    delta_high: -0.2,
    mde: null,
    margin: 0.05,
    verdict: 'regressed' as const,
    method: 'test method',
  };
  r.effect = { margin: 0.05, paired: 5, overall: [row], suites: [{ path: 'evals/a.yaml', rows: [row] }] };
  return r;
}

const scriptOf = (html: string) => /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;

test('one file: a CSP before any script allows only its own script and style, by hash; the data cannot close its element', () => {
  const html = renderHtmlReport(hostileRun(), { redact: (t) => t.replaceAll('octocat', '***') });
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)" \/>/.exec(html)![1]!;
  expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
  const hash = createHash('sha256').update(scriptOf(html)).digest('base64');
  expect(csp.split('; ')).toEqual([
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    expect.stringMatching(/^style-src 'sha256-[A-Za-z0-9+/]+=*'$/),
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ]);
  expect(html).not.toMatch(/'unsafe-/);
  // Two script elements: the JSON block and the script. No hostile `</script>` or `<!--` in between.
  expect(html.match(/<script/g)).toHaveLength(2);
  expect(html.match(/<\/script>/g)).toHaveLength(2);
  expect(html).not.toMatch(/<img|<!-- and/);
  // No address the page could load: no src or href attribute at all.
  const markup = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '');
  expect(markup).not.toMatch(/<[a-z]+[^>]*\s(src|href)=/i);
  expect(html).not.toContain('octocat');
  const data = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  expect(JSON.parse(data).cases[0]).toMatchObject({ id: 'errored', verdict: 'error' });
});

const browserTest = HAS_BROWSER ? test : test.skip;
if (!HAS_BROWSER)
  console.warn(
    `html-report: no browser at ${CHROMIUM}: the headless-browser test is skipped (apt-get install chromium, or set RUBRIC_EVAL_CHROMIUM)`,
  );

browserTest(
  'in a real browser: no request, no console error, no CSP violation; filters and keys work; hostile markup stays text',
  async () => {
    const dir = tmpDir('re-html-');
    const file = path.join(dir, 'report.html');
    writeFileSync(
      file,
      renderHtmlReport(hostileRun(), { redact: (t) => t, runUrl: 'https://github.com/o/r/actions/runs/1' }),
    );
    const context = await openChromium();
    try {
      const page = await context.newPage();
      const url = pathToFileURL(file).href;
      const requests: string[] = [];
      const problems: string[] = [];
      page.on('request', (r) => {
        if (r.url() !== url) requests.push(r.url());
      });
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      // Given as text: it runs in the page, not here (and CDP injects it outside the page's CSP).
      await page.addInitScript(
        "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective));",
      );
      await page.goto(url);
      await page.waitForSelector('body[data-ready="true"]');
      const shown = () => page.locator('#cases > li .id').allTextContents();
      // Locators, not waitForFunction: that evaluates text in the page, which its CSP forbids.
      const listed = async (n: number) => {
        await page.locator('#cases > li').nth(n).waitFor({ state: 'detached' });
        await page
          .locator('#cases > li')
          .nth(n - 1)
          .waitFor();
      };
      // Failing first: the errored case, then the failed one, then borderline.
      expect((await shown()).slice(0, 3)).toEqual(['errored', 'hostile <b>case</b>', 'explain-quicksort']);
      expect(await page.locator('#effect').isVisible()).toBe(true);
      expect(await page.locator('#effect td').allTextContents()).toEqual(
        expect.arrayContaining(['pass rate', 'regressed', '-60 (-90 to -20)']),
      );
      expect(await page.locator('#rubric pre').first().textContent()).toBe(
        'FAIL <script>window.__pwned5=1</script>',
      );

      await page.check('#f-failing');
      expect(await shown()).toEqual(['errored', 'hostile <b>case</b>', 'explain-quicksort']);
      await page.uncheck('#f-failing');
      await page.check('#f-changed');
      expect((await shown()).sort()).toEqual(['errored', 'explain-quicksort', 'hostile <b>case</b>']);
      await page.uncheck('#f-changed');
      // Keyboard: `/` focuses the search, Escape clears it, j moves through cases, Enter opens one.
      await page.keyboard.press('/');
      await page.keyboard.type('quicksort');
      await listed(1);
      expect(await shown()).toEqual(['explain-quicksort']);
      await page.keyboard.press('Escape');
      await listed(5);
      await page.locator('#f-text').blur();
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      const opened = page.locator('#cases details[open]');
      await opened.waitFor();
      // A case's body is built on its `toggle` event, which fires after `open` is set: wait for it.
      await opened.locator('pre').nth(1).waitFor();
      const pres = await opened.locator('pre').allTextContents();
      expect(pres).toEqual([HOSTILE_ANSWER, 'Paris.']);
      expect(await opened.locator('.sides h4').allTextContents()).toEqual(
        expect.arrayContaining(['This run', 'Base branch', 'Base answer']),
      );
      expect(await opened.textContent()).toContain(
        'The answer injects <img src=x onerror="window.__pwned3=1">',
      );
      // Open every case: the errored one's message is shown as text too.
      const closed = page.locator('#cases details:not([open]) summary');
      while ((await closed.count()) > 0) await closed.first().click();
      // Bodies are built on `toggle`, after the click returns: wait for the errored case's to be there.
      await page.locator('#cases pre', { hasText: '<script>window.__pwned4=1</script>' }).first().waitFor();
      expect(await page.locator('#cases').textContent()).toContain('<script>window.__pwned4=1</script>');

      expect(await page.locator('img, iframe, object, embed').count()).toBe(0);
      const flags = await page.evaluate(() =>
        ['__pwned', '__pwned2', '__pwned3', '__pwned4', '__pwned5'].filter((k) => k in globalThis),
      );
      expect(flags).toEqual([]);
      expect(await page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp)).toEqual([]);
      expect(requests).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  },
  120_000,
);

test('the bundled strings are the files under src/report/html (scripts/html-assets.mjs)', async () => {
  const { htmlAssetsModule } = (await import(path.join(REPO_ROOT, 'scripts/html-assets.mjs'))) as {
    htmlAssetsModule: () => string;
  };
  expect(readFileSync(path.join(REPO_ROOT, 'src/report/html/assets.ts'), 'utf8')).toBe(htmlAssetsModule());
});
