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
  // Not even the body: a describe body runs at collection time, and it may read the corpus. Its
  // tests are skipped under the names their snapshots were recorded with, so jest keeps those
  // snapshots (it judges a snapshot obsolete only when no test of its name ran or was skipped).
  const recorded = recordedTestNames(name);
  if (recorded.length === 0) {
    test.skip(`${name} (corpus absent)`, () => {});
    return;
  }
  describe(name, () => {
    for (const test_ of recorded) test.skip(test_, () => {});
  });
}

/** The names of the tests under `describe(name)` that have snapshots in this test file's .snap. */
function recordedTestNames(name: string): string[] {
  const state: unknown = expect.getState().snapshotState;
  if (!state || typeof (state as { getUncheckedKeys?: unknown }).getUncheckedKeys !== 'function') return [];
  const keys = (state as { getUncheckedKeys(): string[] }).getUncheckedKeys();
  const prefix = `${name} `;
  // A snapshot key is the test's full name, a space and a count.
  const names = keys
    .filter((k) => k.startsWith(prefix))
    .map((k) => k.slice(prefix.length).replace(/ \d+$/, ''));
  return [...new Set(names)];
}

/** `test` when the corpus is present; otherwise skipped (see describeCorpus). */
export const corpusTest: jest.It = HAS_CORPUS ? test : test.skip;
