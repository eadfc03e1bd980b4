import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * Every error the engine throws on purpose, with a message for the user, is a RubricEvalError
 * (or a subclass), so a caller can tell it from a bug. A plain Error is left only where it marks
 * a bug in the caller or never leaves the function that throws it.
 */
const PLAIN_ERRORS_ALLOWED = new Map([
  ['src/core/template.ts', 'a caller passed a non-global pattern: a bug'],
  ['src/judge/sampling.ts', 'the median of no values: a bug'],
  ['src/judge/cache.ts', 'a corrupt entry, caught on the next line and read as a miss'],
  ['src/evaluators/text-assertion.ts', 'a schema check scored before its validator was loaded: a bug'],
  [
    'src/exec/script-runners.ts',
    "the runner script's own text: it throws in the child process, not the engine",
  ],
]);

test('the engine throws RubricEvalErrors, not plain Errors', () => {
  const plain: string[] = [];
  for (const entry of readdirSync(path.join(REPO_ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.relative(REPO_ROOT, path.join(entry.parentPath, entry.name));
    const count = readFileSync(path.join(REPO_ROOT, file), 'utf8').match(/\bnew Error\(/g)?.length ?? 0;
    if (count > 0 && !PLAIN_ERRORS_ALLOWED.has(file)) plain.push(`${file}: ${count}`);
  }
  expect(plain).toEqual([]);
});
