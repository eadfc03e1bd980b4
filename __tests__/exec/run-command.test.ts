import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { childEnv, Redactor, secretsFromEnv } from '../../src/exec/redact.js';
import { runCommand } from '../../src/exec/run-command.js';
import { tmpDir } from '../helpers/judge.js';
import { alive } from '../helpers/processes.js';

const none = new Redactor([]);
const run = (command: string | string[], extra: Partial<Parameters<typeof runCommand>[0]> = {}) =>
  runCommand({ command, cwd: tmpDir(), timeoutMs: 10_000, env: process.env, redactor: none, ...extra });

/** Alive and not a zombie (a reparented zombie still answers kill(pid, 0) until reaped). */

test('exit code, interleaved output and duration are recorded', async () => {
  const r = await run('echo one; echo two >&2; echo three; exit 3');
  expect(r.exitCode).toBe(3);
  // stdout and stderr are two pipes: lines interleave in arrival order, which the OS decides.
  expect(r.output.split('\n').sort()).toEqual(['', 'one', 'three', 'two']);
  expect(r.stdout).toBe('one\nthree\n');
  expect(r.stderrTail).toBe('two\n');
  expect(r.timedOut).toBe(false);
  expect(r.durationMs).toBeGreaterThanOrEqual(0);
});

test('an argv list runs without a shell: metacharacters stay literal', async () => {
  const r = await run(['echo', '$HOME; rm -rf /']);
  expect(r.stdout).toBe('$HOME; rm -rf /\n');
});

test('a command that sleeps past the timeout is killed with its children and reported as timed out', async () => {
  const dir = tmpDir();
  const pidFile = path.join(dir, 'child.pid');
  const started = Date.now();
  const r = await run(`sleep 60 & echo $! > ${pidFile}; sleep 60`, { cwd: dir, timeoutMs: 500 });
  expect(r.timedOut).toBe(true);
  expect(r.exitCode).toBeNull();
  expect(Date.now() - started).toBeLessThan(5000);
  const childPid = Number(readFileSync(pidFile, 'utf8').trim());
  await new Promise((res) => setTimeout(res, 100));
  expect(alive(childPid)).toBe(false);
});

test('a command that exits but leaves a background child holding stdout does not hang', async () => {
  const started = Date.now();
  const r = await run('sleep 30 & echo done', { timeoutMs: 20_000 });
  expect(r.exitCode).toBe(0);
  expect(r.output).toContain('done');
  expect(Date.now() - started).toBeLessThan(5000);
});

test('50 MB of output keeps head and tail within the bound', async () => {
  const r = await run(
    `printf 'FIRST-LINE\\n'; head -c 52428800 /dev/zero | tr '\\0' 'x'; printf '\\nLAST-LINE\\n'`,
    { stdoutLimit: 1024 },
  );
  expect(r.exitCode).toBe(0);
  expect(r.output.length).toBeLessThan(4 * 1024 + 16 * 1024 + 100);
  expect(r.output.startsWith('FIRST-LINE\n')).toBe(true);
  expect(r.output.endsWith('LAST-LINE\n')).toBe(true);
  expect(r.output).toMatch(/\[… \d+ bytes cut …\]/);
  expect(r.stdoutOverflowed).toBe(true);
});

test('secret values are replaced by *** in everything kept', async () => {
  const judgeKey = 'sk-test-judge-key-123456';
  const r = await runCommand({
    command: `echo "key=${judgeKey}" ; echo "pw=$DB_PASSWORD" >&2`,
    cwd: tmpDir(),
    timeoutMs: 5000,
    env: { ...process.env, DB_PASSWORD: 'hunter2-very-secret' },
    redactor: new Redactor([
      judgeKey,
      ...secretsFromEnv({ DB_PASSWORD: 'hunter2-very-secret', SHORT_KEY: '1' }),
    ]),
  });
  expect(r.output).toBe('key=***\npw=***\n');
  expect(r.stdout).toBe('key=***\n');
  expect(r.stderrTail).toBe('pw=***\n');
});

test('children do not see GITHUB_TOKEN, the judge key or INPUT_* variables', async () => {
  const env = childEnv(
    {
      PATH: process.env.PATH,
      GITHUB_TOKEN: 'ghs_token_value',
      INPUT_JUDGE_API_KEY: 'sk-judge',
      OPENAI_API_KEY: 'sk-judge',
      MY_SETTING: 'kept',
    },
    ['sk-judge', 'ghs_token_value'],
  );
  const r = await run('env', { env });
  expect(r.stdout).toContain('MY_SETTING=kept');
  expect(r.stdout).not.toContain('GITHUB_TOKEN');
  expect(r.stdout).not.toContain('INPUT_');
  expect(r.stdout).not.toContain('sk-judge');
});

test('children see no ACTIONS_* variable: runtime, cache and OIDC tokens and URLs stay with the action', () => {
  const env = childEnv(
    {
      ACTIONS_RUNTIME_TOKEN: 'rt',
      ACTIONS_RUNTIME_URL: 'https://pipelines.example/',
      ACTIONS_CACHE_URL: 'https://cache.example/',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.example/',
      RUNNER_TEMP: '/tmp/r',
    },
    [],
  );
  expect(env).toEqual({ RUNNER_TEMP: '/tmp/r' });
});

test('a secret learnt mid-run is redacted from then on, in text and in streams opened after', () => {
  const redactor = new Redactor(['first-secret-1']);
  expect(redactor.add(['learnt-later-2', 'first-secret-1', 'tiny', 'two\nline-secret'])).toEqual([
    'learnt-later-2',
    'two\nline-secret',
    'line-secret',
  ]);
  expect(redactor.redact('a learnt-later-2 b first-secret-1 c line-secret tiny')).toBe(
    'a *** b *** c *** tiny',
  );
  const stream = redactor.stream();
  const out = Buffer.concat([
    stream.push(Buffer.from('x learnt-la')),
    stream.push(Buffer.from('ter-2 y')),
    stream.end(),
  ]);
  expect(out.toString()).toBe('x *** y');
});

test('a missing executable is reported, not thrown', async () => {
  const r = await run(['definitely-not-a-command-xyz']);
  expect(r.spawnError).toMatch(/ENOENT/);
});

test('cancellation kills the command', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 200);
  const r = await run('sleep 30', { signal: ac.signal });
  expect(r.cancelled).toBe(true);
  expect(existsSync('/proc')).toBe(true);
});
