// The README's example PR comment and docs/pr-comment.png, both from the offline demo (`npm run
// demo`: the examples judged by the recorded judge) as it prints the comment today, so neither can
// drift from what the action writes. Run `npm run package` first.
//
//   node scripts/readme-comment.mjs          rewrite the README's example and docs/pr-comment.png
//   node scripts/readme-comment.mjs --check  exit 1 when the README's example is not today's
//
// What differs run to run, the durations (the gates' times, the run's), is compared as `N s`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const START = '<!-- demo-comment:start -->';
const END = '<!-- demo-comment:end -->';

/** The demo's comment, as `npm run demo -- --format markdown` prints it. */
function demoComment() {
  const demo = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.demo;
  const args = demo
    .replace(/^node /, '')
    .match(/'[^']*'|\S+/g)
    .map((a) => a.replace(/^'|'$/g, ''));
  return execFileSync(process.execPath, [...args, '--format', 'markdown'], {
    cwd: root,
    encoding: 'utf8',
    // The demo's notice that its judge is recorded goes to stderr: kept out of the check's output.
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

// Durations (the gates' times, the run's) differ run to run: compared as `N s`.
const durationFree = (text) => text.replace(/\b\d+(?:\.\d+)? s\b/g, 'N s');

function readmeSection(readme) {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md: no ${START} … ${END} block`);
  return { from, to: to + END.length };
}

const block = (comment) => `${START}\n\n---\n\n${comment}\n\n---\n\n${END}`;

/** Renders the comment with a GitHub-like stylesheet in headless Chromium (needs /usr/bin/chromium). */
async function screenshot(comment, file) {
  const { openChromium } = await import('../__fixtures__/servers/chromium.mjs');
  // This machine may have no emoji font: the verdict marks are drawn as coloured glyphs instead.
  const marks = {
    '❌': ['✕', '#d1242f'],
    '✅': ['✓', '#1a7f37'],
    '🟡': ['●', '#bf8700'],
    '⚠️': ['!', '#bf8700'],
  };
  const body = new MarkdownIt({ html: true })
    .render(comment)
    .replace(/❌|✅|🟡|⚠️/gu, (m) => `<b style="color:${marks[m][1]}">${marks[m][0]}</b>`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rubric-comment-shot-'));
  const html = path.join(dir, 'comment.html');
  writeFileSync(
    html,
    `<!doctype html><meta charset="utf-8"><style>
body{font:14px/1.5 -apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:#1f2328;margin:0;padding:16px;background:#fff}
main{border:1px solid #d1d9e0;border-radius:6px;padding:16px 24px;max-width:860px}
h2{font-size:1.5em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em;margin:.2em 0 16px}h3{font-size:1.25em;margin:24px 0 16px}
table{border-collapse:collapse;margin:0 0 16px}th,td{border:1px solid #d1d9e0;padding:6px 13px}tr:nth-child(2n){background:#f6f8fa}
code{white-space:nowrap;background:#eff1f3;border-radius:6px;padding:.2em .4em;font:85% ui-monospace,SFMono-Regular,Menlo,monospace}
details{margin:0 0 16px}summary{cursor:pointer}sub{color:#59636e}
</style><main>${body}</main>`,
  );
  const context = await openChromium({ viewport: { width: 900, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(pathToFileURL(html).href);
  await page.locator('main').screenshot({ path: file });
  await context.close();
  rmSync(dir, { recursive: true, force: true });
}

const readmePath = path.join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const { from, to } = readmeSection(readme);
const comment = demoComment();
if (process.argv.includes('--check')) {
  const same = durationFree(readme.slice(from, to)) === durationFree(block(comment));
  if (!same)
    console.error(
      "README.md: the example comment is not the demo's today: run node scripts/readme-comment.mjs",
    );
  process.exit(same ? 0 : 1);
}
writeFileSync(readmePath, readme.slice(0, from) + block(comment) + readme.slice(to));
await screenshot(comment, path.join(root, 'docs/pr-comment.png'));
console.log('README.md example comment and docs/pr-comment.png written');
