import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { INPUT_NAMES } from '../src/config/config.js';
import { OUTPUT_NAMES } from '../src/report/outputs.js';
import { REPO_ROOT } from './helpers/paths.js';

const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const action = parse(readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
};

function table(heading: string): string[][] {
  const section = readme.split(`\n## ${heading}\n`)[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((l) => /^\| `/.test(l))
    .map((l) =>
      l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

test('the README inputs table matches action.yml: names, order and defaults', () => {
  const rows = table('Inputs');
  expect(rows.map((r) => r[0]!.replace(/`/g, ''))).toEqual(Object.keys(action.inputs));
  for (const [name, def] of rows.map((r) => [r[0]!.replace(/`/g, ''), r[1]!.replace(/`/g, '')])) {
    expect([name, def]).toEqual([name, action.inputs[name!]!.default ?? '']);
  }
});

test('the README outputs table matches action.yml', () => {
  expect(table('Outputs').map((r) => r[0]!.replace(/`/g, ''))).toEqual(Object.keys(action.outputs));
});

test('the action reads exactly the inputs action.yml declares, and runs on node24', () => {
  expect([...INPUT_NAMES].sort()).toEqual(Object.keys(action.inputs).sort());
  expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
});

test('the action sets exactly the outputs action.yml declares, in its order', () => {
  expect([...OUTPUT_NAMES]).toEqual(Object.keys(action.outputs));
});

test('the README starts with the two newcomer commands', () => {
  const firstBlock = /```bash\n([\s\S]*?)```/.exec(readme)![1]!;
  const commands = firstBlock.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  expect(commands).toEqual(['npm run demo', 'npm ci && npm test']);
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  expect(pkg.scripts.demo).toContain('--judge-replay examples/recorded-judge');
});

test('the sharding page matrix workflow shards, uploads every shard, and merges after all of them', () => {
  const section = readFileSync(path.join(REPO_ROOT, 'docs/sharding.md'), 'utf8');
  const workflow = parse(/```yaml\n([\s\S]*?)```/.exec(section)![1]!) as {
    jobs: Record<
      string,
      {
        needs?: string;
        if?: string;
        strategy?: { matrix: { shard: number[] } };
        steps: { uses?: string; if?: string; with?: Record<string, unknown> }[];
      }
    >;
  };
  const [shardJob, mergeJob] = Object.values(workflow.jobs);
  const n = shardJob!.strategy!.matrix.shard.length;
  const run = shardJob!.steps.find((s) => s.uses?.startsWith('org/rubric-eval'))!;
  expect(run.with!.shard).toBe(`\${{ matrix.shard }}/${n}`);
  const upload = shardJob!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
  expect(upload.if).toBe('always()');
  expect(upload.with!.path).toBe(run.with!['results-file']);
  expect(mergeJob!.needs).toBe(Object.keys(workflow.jobs)[0]);
  expect(mergeJob!.if).toBe('always()');
  const download = mergeJob!.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!;
  expect(download.with).toMatchObject({ 'merge-multiple': true, pattern: 'rubric-eval-shard-*' });
  const merge = mergeJob!.steps.find((s) => s.uses?.startsWith('org/rubric-eval'))!;
  expect(merge.with).toEqual({ merge: `${download.with!.path as string}/*.json` });
  for (const input of ['shard', 'merge']) expect(Object.keys(action.inputs)).toContain(input);
});

test('every file of this repository the README and docs/ name exists', () => {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(path.join(REPO_ROOT, 'docs', f), 'utf8'));
  const named = [...[readme, ...docs].join('\n').matchAll(/`((?:__tests__|src|scripts)\/[^`\s]*)`/g)].map(
    (m) => m[1]!,
  );
  expect(named.length).toBeGreaterThan(20);
  const missing = named.filter((p) => !p.includes('*') && !existsSync(path.join(REPO_ROOT, p)));
  expect(missing).toEqual([]);
});
