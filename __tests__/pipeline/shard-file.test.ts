import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Workspace } from '../../src/core/workspace.js';
import { readShardFiles } from '../../src/pipeline/shard-file.js';
import { tmpDir } from '../helpers/judge.js';
import { resultsOf } from '../helpers/results.js';

const shardText = (index: number) =>
  JSON.stringify(
    resultsOf([['s.yaml', `c${index}`, 'pass', 1, '0123456789abcdef']], {
      shard: { index, total: 2, plan_hash: 'ab12', planned: 2 },
    }),
  );

/** A workspace with one shard file of its own, and one shard file outside it that links reach. */
function layout(): { ws: Workspace; outside: string } {
  const root = tmpDir('re-shardfile-');
  const outside = tmpDir('re-shardfile-out-');
  mkdirSync(path.join(root, 'shards'));
  writeFileSync(path.join(root, 'shards/1.json'), shardText(1));
  writeFileSync(path.join(outside, '2.json'), shardText(2));
  return { ws: new Workspace(root), outside };
}

test('a shard file in the workspace is read', async () => {
  const { ws } = layout();
  const r = await readShardFiles(['shards/*.json'], ws);
  expect(r.errors).toEqual([]);
  expect(r.files.map((f) => [f.file, f.results.shard.index])).toEqual([['shards/1.json', 1]]);
});

test('a merge glob does not walk a link to a folder outside the workspace', async () => {
  const { ws, outside } = layout();
  symlinkSync(outside, path.join(ws.root, 'shards/elsewhere'));
  const r = await readShardFiles(['**/*.json'], ws);
  expect(r.files.map((f) => f.file)).toEqual(['shards/1.json']);
  expect(r.errors).toEqual([]);
});

test('a shard file reached through a linked folder is refused as outside the workspace', async () => {
  const { ws, outside } = layout();
  symlinkSync(outside, path.join(ws.root, 'linked'));
  const r = await readShardFiles(['linked/2.json'], ws);
  expect(r.files).toEqual([]);
  expect(r.errors).toEqual([
    expect.stringMatching(/^linked\/2\.json: unreadable shard results file: .*outside the workspace/),
  ]);
});
