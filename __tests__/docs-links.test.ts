import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

/** GitHub's heading anchor: lower-cased, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings, outside fenced code. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) found.add(slug(heading[1]!));
  }
  return found;
}

/** Relative links `[text](target)` outside fenced code and code spans. */
function links(text: string): string[] {
  const prose = text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

const pages = [
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

test.each(pages)(
  'every relative link in %s resolves to a file, and to a heading where it names one',
  (page) => {
    const text = readFileSync(path.join(REPO_ROOT, page), 'utf8');
    const broken = links(text).filter((target) => {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file
        ? path.resolve(path.dirname(path.join(REPO_ROOT, page)), file)
        : path.join(REPO_ROOT, page);
      if (!existsSync(resolved)) return true;
      if (!anchor || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) return false;
      return !anchors(readFileSync(resolved, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  },
);

test('the README links every page in docs/', () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const unlinked = pages.filter((p) => p !== 'README.md' && !readme.includes(`](${p}`));
  expect(unlinked).toEqual([]);
});
