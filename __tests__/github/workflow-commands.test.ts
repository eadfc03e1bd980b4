import * as actionsCore from '@actions/core';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as ours from '../../src/github/workflow-commands.js';
import { tmpDir } from '../helpers/judge.js';

// The runner reads these lines and files: ours must be byte for byte what @actions/core writes
// (the reference, still in node_modules), random output delimiters aside.

/** What `fn` writes to stdout and the exit code it sets; both restored after. */
async function captured(fn: () => unknown): Promise<{ out: string; exitCode: typeof process.exitCode }> {
  const write = process.stdout.write.bind(process.stdout);
  const exitCode = process.exitCode;
  let out = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
    return { out, exitCode: process.exitCode };
  } finally {
    process.stdout.write = write;
    process.exitCode = exitCode;
  }
}

const awkward = 'a 100% bad\r\nline: with, commas';
const places = [
  {},
  { title: 'gate: npm test, strict' },
  { title: 't', file: 'evals/a b,c:d.yaml', startLine: 12, startColumn: 3 },
  { title: 't', file: 'x.yaml', startLine: 0 },
];

test.each(places)('annotations are the commands @actions/core writes (%j)', async (where) => {
  for (const level of ['error', 'warning'] as const) {
    const mine = await captured(() => ours[level](awkward, where));
    const theirs = await captured(() => actionsCore[level](awkward, where));
    expect({ level, out: mine.out }).toEqual({ level, out: theirs.out });
    expect(mine.out).toMatch(new RegExp(`^::${level}.*::a 100%25 bad%0D%0Aline: with, commas\n$`));
  }
});

test('info, masks, groups and a failed check match @actions/core', async () => {
  const pairs: [() => unknown, () => unknown][] = [
    [() => ours.info(awkward), () => actionsCore.info(awkward)],
    [() => ours.setSecret(awkward), () => actionsCore.setSecret(awkward)],
    [
      () => ours.group(awkward, async () => ours.info('in')),
      () => actionsCore.group(awkward, async () => actionsCore.info('in')),
    ],
    [() => ours.setFailed(awkward), () => actionsCore.setFailed(awkward)],
  ];
  for (const [mine, theirs] of pairs) {
    const a = await captured(mine);
    const b = await captured(theirs);
    expect(a).toEqual(b);
  }
  expect((await captured(() => ours.setFailed('x'))).exitCode).toBe(1);
});

test('a group returns its work and closes even when the work throws', async () => {
  const { out } = await captured(async () => {
    expect(await ours.group('g', async () => 7)).toBe(7);
    await expect(ours.group('h', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
  expect(out.split('\n')).toEqual(['::group::g', '::endgroup::', '::group::h', '::endgroup::', '']);
});

test('inputs are read as the runner passes them: INPUT_<NAME>, spaces as _, trimmed', () => {
  const saved = { ...process.env };
  try {
    process.env['INPUT_JUDGE_MODEL'] = '  gpt-x \n';
    process.env['INPUT_RESULTS-FILE'] = 'r.json';
    for (const name of ['judge model', 'results-file', 'absent'])
      expect(ours.getInput(name)).toBe(actionsCore.getInput(name));
    expect(ours.getInput('judge model')).toBe('gpt-x');
  } finally {
    process.env = saved;
  }
});

test('outputs go to GITHUB_OUTPUT as delimited blocks, as @actions/core writes them', async () => {
  const dir = tmpDir('wf-out-');
  const saved = process.env.GITHUB_OUTPUT;
  const blocks = (file: string) => readFileSync(file, 'utf8').replace(/ghadelimiter_[0-9a-f-]{36}/g, 'DELIM');
  try {
    const value = 'line 1\nline 2 ghadelimiter_ but not ours';
    process.env.GITHUB_OUTPUT = path.join(dir, 'ours');
    writeFileSync(process.env.GITHUB_OUTPUT, '');
    ours.setOutput('verdict', value);
    ours.setOutput('empty', '');
    process.env.GITHUB_OUTPUT = path.join(dir, 'theirs');
    writeFileSync(process.env.GITHUB_OUTPUT, '');
    actionsCore.setOutput('verdict', value);
    actionsCore.setOutput('empty', '');
    expect(blocks(path.join(dir, 'ours'))).toBe(blocks(path.join(dir, 'theirs')));
    expect(blocks(path.join(dir, 'ours'))).toContain('verdict<<DELIM\nline 1\nline 2');
    // A missing file is an error, not a silently lost output.
    process.env.GITHUB_OUTPUT = path.join(dir, 'missing');
    expect(() => ours.setOutput('a', 'b')).toThrow(`Missing file at path: ${path.join(dir, 'missing')}`);
    // No file at all: the older set-output command on stdout.
    delete process.env.GITHUB_OUTPUT;
    expect(await captured(() => ours.setOutput('a', 'b,c'))).toEqual(
      await captured(() => actionsCore.setOutput('a', 'b,c')),
    );
  } finally {
    if (saved === undefined) delete process.env.GITHUB_OUTPUT;
    else process.env.GITHUB_OUTPUT = saved;
  }
});

test('the job summary replaces the file; an unset or unwritable summary is an error that says so', async () => {
  const dir = tmpDir('wf-sum-');
  const saved = process.env.GITHUB_STEP_SUMMARY;
  try {
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, 'a fake report a gate wrote\n');
    process.env.GITHUB_STEP_SUMMARY = file;
    await ours.writeJobSummary('# Report\n');
    expect(readFileSync(file, 'utf8')).toBe('# Report\n');
    chmodSync(file, 0o400);
    if (process.getuid?.() !== 0)
      await expect(ours.writeJobSummary('x')).rejects.toThrow(`Unable to access summary file: '${file}'`);
    process.env.GITHUB_STEP_SUMMARY = path.join(dir, 'absent.md');
    await expect(ours.writeJobSummary('x')).rejects.toThrow('Unable to access summary file');
    delete process.env.GITHUB_STEP_SUMMARY;
    await expect(ours.writeJobSummary('x')).rejects.toThrow('$GITHUB_STEP_SUMMARY');
  } finally {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
    else process.env.GITHUB_STEP_SUMMARY = saved;
  }
});

test('a logged line that looks like a workflow command is shown, not obeyed', async () => {
  const forged = 'case ok\n::error::forged annotation\n  ::add-mask::x\r::stop-commands::t\nmid :: line';
  const { out } = await captured(() => ours.info(forged));
  const lines = out.split(/\r\n|\n|\r/);
  expect(lines.filter((l) => /^\s*::/.test(l))).toEqual([]);
  expect(out.replace(/\u200b/g, '')).toBe(`${forged}\n`);
  // Text without a command-like line is written as @actions/core writes it.
  const plain = await captured(() => ours.info('mid :: line, 100%'));
  const reference = await captured(() => actionsCore.info('mid :: line, 100%'));
  expect(plain.out).toBe(reference.out);
});
