import { parseBundle, type RecordBundle } from '../../src/pipeline/record-bundle.js';
import { mergeRecordBundles, type NamedBundle } from '../../src/pipeline/record-shards.js';
import { recordBundle, recordedAnswer } from '../helpers/record-bundle.js';

const HEAD = 'b'.repeat(40);
const answer = (id: string) => recordedAnswer('evals/x.yaml', id);

/** Shard `index` of `total`, holding the cases it names; parsed as the judge stage parses it. */
function shard(index: number, total: number, ids: string[], over: Record<string, unknown> = {}): NamedBundle {
  const parsed = parseBundle(
    JSON.stringify(
      recordBundle({
        head_sha: HEAD,
        plan_hash: 'plan-1',
        shard: { index, total, planned: 5 },
        answers: ids.map(answer),
        gates: index === 1 ? [{ command: 'npm test', exit_code: 0, output: 'ok' }] : [],
        ...over,
      }),
    ),
  );
  if ('errors' in parsed) throw new Error(parsed.errors.join('; '));
  return { artifact: `rubric-eval-record-${index}`, bundle: parsed.bundle };
}

const merged = (parts: NamedBundle[]): RecordBundle => {
  const r = mergeRecordBundles(parts);
  if ('errors' in r) throw new Error(r.errors.join('; '));
  return r.bundle;
};
const errorsOf = (parts: NamedBundle[]): string[] => {
  const r = mergeRecordBundles(parts);
  return 'errors' in r ? r.errors : [];
};

test("every shard's bundle, in any order, merges into one bundle of the whole run", () => {
  const b = merged([shard(2, 2, ['b', 'd']), shard(1, 2, ['a', 'c', 'e'])]);
  expect(b.answers.map((a) => a.id)).toEqual(['a', 'c', 'e', 'b', 'd']);
  expect(b.gates.map((g) => g.command)).toEqual(['npm test']);
  expect(b).toMatchObject({ repository: 'o/r', pr_number: 4, head_sha: HEAD, plan_hash: 'plan-1' });
  expect(b.shard).toBeUndefined();
});

test('one unsharded bundle is taken as it is', () => {
  const one = shard(1, 1, ['a']);
  const plain: NamedBundle = { artifact: 'rubric-eval-record', bundle: { ...one.bundle, shard: undefined } };
  expect(merged([plain])).toBe(plain.bundle);
});

test('a shard that recorded nothing is said, never judged around', () => {
  expect(errorsOf([shard(1, 3, ['a']), shard(3, 3, ['c'])])).toEqual(['shard 2/3 missing']);
  expect(errorsOf([shard(1, 2, ['a'])])).toEqual(['shard 2/2 missing']);
});

test('the same shard twice, or shards of different plans, are errors naming the artifacts', () => {
  const again = { ...shard(2, 2, ['b']), artifact: 'rubric-eval-record-2-again' };
  expect(errorsOf([shard(1, 2, ['a']), shard(2, 2, ['b']), again])).toEqual([
    'shard 2/2 given 2 times: rubric-eval-record-2, rubric-eval-record-2-again',
  ]);
  expect(errorsOf([shard(1, 2, ['a']), shard(2, 2, ['b'], { plan_hash: 'plan-2' })])[0]).toMatch(
    /^plan hash mismatch: shard 1\/2 \(rubric-eval-record-1\) planned plan-1; shard 2\/2 \(rubric-eval-record-2\) planned plan-2/,
  );
  expect(errorsOf([shard(1, 2, ['a']), shard(2, 3, ['b'])])).toEqual([
    'record bundles disagree on the number of shards: shard 1/2 (rubric-eval-record-1), shard 2/3 (rubric-eval-record-2)',
  ]);
});

test('shards of another pull request or commit, a case or gate in two shards: errors, nothing merged', () => {
  expect(errorsOf([shard(1, 2, ['a']), shard(2, 2, ['b'], { pr_number: 5 })])).toEqual([
    "the shards' record bundles disagree on pr_number: shard 1/2 (rubric-eval-record-1) 4, shard 2/2 (rubric-eval-record-2) 5",
  ]);
  expect(errorsOf([shard(1, 2, ['a']), shard(2, 2, ['b'], { head_sha: 'c'.repeat(40) })])[0]).toMatch(
    /disagree on head_sha/,
  );
  expect(errorsOf([shard(1, 2, ['a', 'b']), shard(2, 2, ['b'])])).toEqual([
    'shard 1/2 (rubric-eval-record-1) and shard 2/2 (rubric-eval-record-2) both hold an answer for case evals/x.yaml#b',
  ]);
  const gate = [{ command: 'npm test', exit_code: 1, output: 'bad' }];
  expect(errorsOf([shard(1, 2, ['a']), shard(2, 2, ['b'], { gates: gate })])).toEqual([
    'shard 1/2 (rubric-eval-record-1) and shard 2/2 (rubric-eval-record-2) both hold a result for gate npm test',
  ]);
});

test('a bundle without `shard` among shard bundles is refused', () => {
  const plain: NamedBundle = {
    artifact: 'rubric-eval-record',
    bundle: { ...shard(1, 1, ['a']).bundle, shard: undefined },
  };
  expect(errorsOf([plain, shard(2, 2, ['b'])])).toEqual([
    "the record run uploaded 2 record bundles, but rubric-eval-record is not a shard's (no `shard`): one run records either one bundle or one per shard",
  ]);
});

test("what stopped a shard's recording is kept, once, with the shards named unless it stopped them all", () => {
  const b = merged([
    shard(1, 3, ['a'], { errors: ['evals/x.yaml:3 bad'] }),
    shard(2, 3, [], { errors: ['evals/x.yaml:3 bad', 'a target timed out'] }),
    shard(3, 3, [], { errors: ['evals/x.yaml:3 bad', 'a target timed out'] }),
  ]);
  expect(b.errors).toEqual(['evals/x.yaml:3 bad', 'shard 2/3, shard 3/3: a target timed out']);
});

test('a shard field out of range is a schema error', () => {
  const r = parseBundle(
    JSON.stringify({ ...shard(1, 2, ['a']).bundle, shard: { index: 3, total: 2, planned: 4 } }),
  );
  expect('errors' in r && r.errors[0]).toMatch(/shard index is beyond the number of shards/);
});
