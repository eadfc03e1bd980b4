import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import * as commands from '../../src/github/workflow-commands.js';
import { inertCommands } from '../../src/github/workflow-commands.js';
import { tmpDir } from '../helpers/judge.js';

// The runner's side is @actions/core's; what is ours is that logged text (a case id, a judge's
// words, a PR title) never issues a command.

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

/** Lines the runner would obey: `::` first, after optional blanks. */
const commandLines = (out: string) => out.split(/\r\n|\n|\r/).filter((l) => /^[ \t]*::/.test(l));

describe('inertCommands', () => {
  test('a line that starts like a command gets a zero-width space between its colons', () => {
    expect(inertCommands('::error::forged')).toBe(':\u200b:error::forged');
    expect(inertCommands('ok\n  ::add-mask::x')).toBe('ok\n  :\u200b:add-mask::x');
    expect(inertCommands('a\r::stop-commands::t\r\n\t::warning::w')).toBe(
      'a\r:\u200b:stop-commands::t\r\n\t:\u200b:warning::w',
    );
  });

  test('text that is no command is left exactly as it was', () => {
    for (const s of ['', 'mid :: line, 100%', 'a::b', 'x\ny ::z', ': :error::no', 'plain'])
      expect(inertCommands(s)).toBe(s);
  });

  test('for any text: no line starts a command, and removing the spaces gives the text back', () => {
    const piece = fc.constantFrom('::', ':', '\n', '\r', '\r\n', ' ', '\t', 'error', 'add-mask', 'x', '%');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        const shown = inertCommands(text);
        expect(commandLines(shown)).toEqual([]);
        expect(shown.replace(/\u200b/g, '')).toBe(text);
      }),
    );
  });
});

test('a logged line that looks like a workflow command is shown through @actions/core, not obeyed', async () => {
  const forged = 'case ok\n::error::forged annotation\n  ::add-mask::x\r::stop-commands::t\nmid :: line';
  const { out } = await captured(() => commands.info(forged));
  expect(commandLines(out)).toEqual([]);
  expect(out.replace(/\u200b/g, '')).toBe(`${forged}\n`);
});

test('annotations, masks and group names carrying line breaks stay one command each', async () => {
  const forged = 'title\n::error::forged';
  const { out } = await captured(async () => {
    commands.error(forged, { title: 'gate: npm test, strict', file: 'evals/a b,c:d.yaml', startLine: 12 });
    commands.warning(forged);
    commands.setSecret(forged);
    await commands.group(forged, async () => commands.info('in'));
  });
  expect(out.split('\n')).toEqual([
    '::error title=gate%3A npm test%2C strict,file=evals/a b%2Cc%3Ad.yaml,line=12::title%0A::error::forged',
    '::warning::title%0A::error::forged',
    '::add-mask::title%0A::error::forged',
    '::group::title%0A::error::forged',
    'in',
    '::endgroup::',
    '',
  ]);
});

test('a failed check sets exit code 1 with an error annotation', async () => {
  const r = await captured(() => commands.setFailed('gate failed'));
  expect(r).toEqual({ out: '::error::gate failed\n', exitCode: 1 });
});

test('a group returns its work and closes even when the work throws', async () => {
  const { out } = await captured(async () => {
    expect(await commands.group('g', async () => 7)).toBe(7);
    await expect(commands.group('h', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
  expect(out.split('\n')).toEqual(['::group::g', '::endgroup::', '::group::h', '::endgroup::', '']);
});

test('inputs are read as the runner passes them: INPUT_<NAME>, spaces as _, trimmed', () => {
  const saved = { ...process.env };
  try {
    process.env['INPUT_JUDGE_MODEL'] = '  gpt-x \n';
    process.env['INPUT_RESULTS-FILE'] = 'r.json';
    expect(commands.getInput('judge model')).toBe('gpt-x');
    expect(commands.getInput('results-file')).toBe('r.json');
    expect(commands.getInput('absent')).toBe('');
  } finally {
    process.env = saved;
  }
});

test('outputs go to GITHUB_OUTPUT as delimited blocks a value cannot end early', () => {
  const dir = tmpDir('wf-out-');
  const saved = process.env.GITHUB_OUTPUT;
  try {
    process.env.GITHUB_OUTPUT = path.join(dir, 'out');
    writeFileSync(process.env.GITHUB_OUTPUT, '');
    commands.setOutput('verdict', 'line 1\nline 2 ghadelimiter_ but not ours\nverdict=pass');
    commands.setOutput('empty', '');
    const text = readFileSync(process.env.GITHUB_OUTPUT, 'utf8');
    expect(text.replace(/ghadelimiter_[0-9a-f-]{36}/g, 'DELIM')).toBe(
      'verdict<<DELIM\nline 1\nline 2 ghadelimiter_ but not ours\nverdict=pass\nDELIM\nempty<<DELIM\n\nDELIM\n',
    );
    // A file a gate removed is put back (the step's own report always lands), never a lost output.
    rmSync(process.env.GITHUB_OUTPUT);
    commands.setOutput('a', 'b');
    // ...holding the action's own earlier outputs, then the new one.
    const back = readFileSync(process.env.GITHUB_OUTPUT, 'utf8').replace(
      /ghadelimiter_[0-9a-f-]{36}/g,
      'DELIM',
    );
    expect(back).toBe(`${text.replace(/ghadelimiter_[0-9a-f-]{36}/g, 'DELIM')}a<<DELIM\nb\nDELIM\n`);
  } finally {
    if (saved === undefined) delete process.env.GITHUB_OUTPUT;
    else process.env.GITHUB_OUTPUT = saved;
  }
});

test('the job summary replaces what the file held; an unset summary file is an error that says so, a removed one is put back', async () => {
  const dir = tmpDir('wf-sum-');
  const saved = process.env.GITHUB_STEP_SUMMARY;
  try {
    // Before the first write: core keeps the path it found.
    delete process.env.GITHUB_STEP_SUMMARY;
    await expect(commands.writeJobSummary('x')).rejects.toThrow('$GITHUB_STEP_SUMMARY');
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, 'a fake report a gate wrote\n');
    process.env.GITHUB_STEP_SUMMARY = file;
    await commands.writeJobSummary('# Report\n');
    expect(readFileSync(file, 'utf8')).toBe('# Report\n');
    await commands.writeJobSummary('# Again\n');
    expect(readFileSync(file, 'utf8')).toBe('# Again\n');
  } finally {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
    else process.env.GITHUB_STEP_SUMMARY = saved;
  }
});
