import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * One reader for the checkout (the README's Guarantees): every file
 * read from the checkout goes through core/ (Workspace.readText, readUserFile,
 * readReferencedFile, readRegularFile), which checks containment, links, type and size. This
 * scan keeps the class closed: a module outside core/ that reads, stats or opens through `fs`
 * must be on this list, with why its paths are none a suite or the pull request names.
 */
const ALLOWED: Record<string, string> = {
  'exec/reaper.ts': "/proc, to find the run's stragglers",
  'exec/script-runners.ts':
    "none itself: the text of the child runner, where the suite's code loads its own file as a gate's would",
  'exec/run-command.ts': 'whether /bin/bash exists',
  'exec/output-buffer.ts':
    "a CLI target's {OUTPUT_FILE}, a temporary path of the action's own (read regular-only, non-blocking, capped)",
  'cli/compare.ts': "results files named on the CLI user's own command line",
  'cli/run-cli.ts': "the diff file named on the CLI user's own command line",
  'cli/plan.ts': "the baseline results file named on the CLI user's own command line",
  'github/run-context.ts': "the runner's event file (GITHUB_EVENT_PATH)",
  'github/step-files.ts':
    "the runner's step files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV, GITHUB_PATH)",
  'judge/cache-place.ts':
    'where the cache folder is (realpath), to know whether it is in the checkout; reads nothing',
};

/** fs functions that read, stat, open or list a path. */
const READS =
  /\b(readFileSync|readFile|statSync|stat|lstatSync|lstat|existsSync|exists|openSync|open|createReadStream|readSync|realpathSync|realpath|readdirSync|readdir|accessSync|access|opendirSync|opendir)\b/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test("no module outside core/ reads through fs but those on the list, whose paths are the runner's or the CLI user's", () => {
  const src = path.join(REPO_ROOT, 'src');
  const readers: Record<string, string[]> = {};
  for (const file of sources(src)) {
    const rel = path.relative(src, file).split(path.sep).join('/');
    if (rel.startsWith('core/')) continue;
    const text = readFileSync(file, 'utf8');
    const imports = [
      ...text.matchAll(/import\s+(\{[^}]*\}|\*\s+as\s+\w+|\w+)\s+from\s+'(?:node:)?fs(?:\/promises)?'/g),
      ...text.matchAll(/import\(\s*'(?:node:)?fs(?:\/promises)?'\s*\)/g),
      ...text.matchAll(/require\(\s*'(?:node:)?fs(?:\/promises)?'\s*\)/g),
    ];
    // A default or namespace import (`import fs from 'node:fs'`) can reach every function: it counts.
    const names = imports.flatMap((m) =>
      m[1]?.startsWith('{') ? m[1].replace(/[{}]/g, '').split(',') : [`(whole module: ${m[0]})`],
    );
    const reading = names
      .map((n) =>
        n
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((n) => READS.test(n) || n.startsWith('(whole module'));
    if (reading.length > 0) readers[rel] = reading;
  }
  const unlisted = Object.keys(readers).filter((rel) => !(rel in ALLOWED));
  expect(unlisted.map((rel) => `${rel}: ${readers[rel]!.join(', ')}`)).toEqual([]);
  // The list holds nothing stale: every module on it still reads.
  expect(Object.keys(ALLOWED).filter((rel) => !(rel in readers))).toEqual([]);
});
