import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * Third-party suites and rubrics (AgentV, scope) live beside the project, not in it: the project
 * holds only what it wrote. CI and every development machine have `../shared/corpus`.
 */
export const CORPUS = path.resolve(REPO_ROOT, '../shared/corpus');
export const HAS_CORPUS = existsSync(CORPUS);
export const FIXTURES = path.join(REPO_ROOT, '__fixtures__');

let said = false;
/** `describe` when the corpus is present; otherwise skipped, with one plain line saying why. */
export function describeCorpus(name: string, body: () => void): void {
  if (HAS_CORPUS) {
    describe(name, body);
    return;
  }
  if (!said) {
    said = true;
    console.log(`corpus not found at ${CORPUS}: the corpus tests are skipped`);
  }
  // Not even the body: a describe body runs at collection time, and it may read the corpus.
  test.skip(`${name} (corpus absent)`, () => {});
}

/** `test` when the corpus is present; otherwise skipped (see describeCorpus). */
export const corpusTest: jest.It = HAS_CORPUS ? test : test.skip;
