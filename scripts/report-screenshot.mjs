// docs/report.png, the README's picture of the HTML report: the offline demo (`npm run demo`:
// the examples judged by the recorded judge) written with --html, opened in headless Chromium with
// its first failing case open. Run `npm run package` first; needs /usr/bin/chromium.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openChromium } from '../__fixtures__/servers/chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'rubric-report-shot-'));
const html = path.join(dir, 'report.html');
execFileSync(
  process.execPath,
  [
    'dist/cli.js',
    'run',
    'examples/evals/*.yaml',
    '--rubric',
    'examples/RUBRIC.md',
    '--diff',
    'examples/pr.diff',
    '--judge-replay',
    'examples/recorded-judge',
    '--fail-on',
    'never',
    '--out',
    path.join(dir, 'results.json'),
    '--html',
    html,
  ],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
const context = await openChromium({ viewport: { width: 1200, height: 900 }, colorScheme: 'light' });
const page = await context.newPage();
await page.goto(pathToFileURL(html).href);
await page.waitForSelector('body[data-ready="true"]');
await page.locator('#cases > li summary').first().click();
await page.screenshot({ path: path.join(root, 'docs/report.png'), fullPage: false });
await context.close();
rmSync(dir, { recursive: true, force: true });
console.log('docs/report.png written');
