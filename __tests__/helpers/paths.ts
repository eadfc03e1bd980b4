import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A vendored copy of ../shared/corpus (checked identical by corpus-copy.test.ts when shared/ is present). */
export const CORPUS = path.join(REPO_ROOT, '__fixtures__/corpus');
export const FIXTURES = path.join(REPO_ROOT, '__fixtures__');
