import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The code is read without the design documents it was built from (they are not in the
 * repository): a comment states the rule it relies on, or names the README section that does,
 * never a section number or seed of a document a reader cannot open.
 */
test('no source, script or test cites a document outside the repository', () => {
  // Built from pieces so this file does not match itself.
  const citation = new RegExp(['CONTRACT' + 'S', '\u00a7', '\\bseeds? 0\\d\\d'].join('|'), 'i');
  const hits: string[] = [];
  for (const dir of ['src', 'scripts', '__tests__', '__fixtures__']) {
    for (const entry of readdirSync(path.join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|mts|mjs|js)$/.test(entry.name)) continue;
      const file = path.join(entry.parentPath, entry.name);
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (citation.test(line)) hits.push(`${path.relative(REPO_ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  expect(hits).toEqual([]);
});
