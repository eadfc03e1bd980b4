import { context } from '@actions/github';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { actionRunContext, readEventPayload } from '../../src/github/run-context.js';
import { tmpDir } from '../helpers/judge.js';

const PR = {
  number: 7,
  title: 'Add search',
  body: null,
  head: { sha: 'abc123' },
  base: { sha: 'b1', ref: 'main' },
};
const RUNNER = {
  GITHUB_REPOSITORY: 'octo/repo',
  GITHUB_SERVER_URL: 'https://github.example',
  GITHUB_RUN_ID: '4242',
  GITHUB_RUN_ATTEMPT: '3',
  GITHUB_WORKSPACE: '/work/checkout',
  GITHUB_SHA: 'deadbeef',
};

test('a pull request run: the PR, the repository, the run and its page, the head commit', () => {
  expect(actionRunContext(RUNNER, { pull_request: PR }, '/elsewhere')).toEqual({
    pr: PR,
    repo: { owner: 'octo', repo: 'repo' },
    runUrl: 'https://github.example/octo/repo/actions/runs/4242',
    run: { id: 4242, attempt: 3 },
    workspace: '/work/checkout',
    commit: 'abc123',
    serverUrl: 'https://github.example',
  });
});

test('outside Actions: no PR, no repository, no run; the current directory and no commit', () => {
  expect(actionRunContext({}, {}, '/here')).toEqual({
    pr: null,
    repo: null,
    runUrl: null,
    run: null,
    workspace: '/here',
    commit: null,
    serverUrl: null,
  });
});

test('a push: GITHUB_SHA is the commit; a run without an attempt is attempt 1; links default to github.com', () => {
  const env = { GITHUB_REPOSITORY: 'octo/repo', GITHUB_RUN_ID: '9', GITHUB_SHA: 'deadbeef' };
  const ctx = actionRunContext(env, { ref: 'refs/heads/main' }, '/here');
  expect([ctx.pr, ctx.commit, ctx.run, ctx.runUrl, ctx.serverUrl]).toEqual([
    null,
    'deadbeef',
    { id: 9, attempt: 1 },
    'https://github.com/octo/repo/actions/runs/9',
    null,
  ]);
});

test('an event payload that is not an object is an event without a pull request', () => {
  for (const payload of [null, 42, 'text', []]) expect(actionRunContext(RUNNER, payload, '/').pr).toBeNull();
});

/** What `@actions/github`'s own Context class reads from `env` (built afresh, not its import-time one). */
function actionsContext(env: Record<string, string>) {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('GITHUB_')) delete process.env[k];
  Object.assign(process.env, env);
  try {
    const c = new (context.constructor as new () => typeof context)();
    // `repo` is a getter that reads the environment when asked.
    return { repo: c.repo, runId: c.runId, runAttempt: c.runAttempt, serverUrl: c.serverUrl };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

test('reads the repository, run id, attempt and server as @actions/github does, odd values included', () => {
  const cases: Record<string, string>[] = [
    RUNNER,
    { ...RUNNER, GITHUB_REPOSITORY: 'a/b/c', GITHUB_RUN_ID: '17abc', GITHUB_RUN_ATTEMPT: 'x' },
    { ...RUNNER, GITHUB_REPOSITORY: 'owner/', GITHUB_RUN_ATTEMPT: '0' },
    { ...RUNNER, GITHUB_SERVER_URL: '', GITHUB_RUN_ID: '-5' },
    { GITHUB_REPOSITORY: 'octo/repo', GITHUB_RUN_ID: '0' },
  ];
  for (const env of cases) {
    const theirs = actionsContext(env);
    const ours = actionRunContext(env, {}, '/');
    expect(ours.repo).toEqual(theirs.repo);
    const hasRun = Number.isInteger(theirs.runId) && theirs.runId > 0;
    expect(ours.run).toEqual(
      hasRun
        ? { id: theirs.runId, attempt: Number.isInteger(theirs.runAttempt) ? theirs.runAttempt : 1 }
        : null,
    );
    expect(ours.runUrl).toBe(
      hasRun
        ? `${theirs.serverUrl}/${theirs.repo.owner}/${theirs.repo.repo}/actions/runs/${theirs.runId}`
        : null,
    );
  }
});

test('the event payload is read from GITHUB_EVENT_PATH; no variable or no file is an empty event', () => {
  const dir = tmpDir('re-event-');
  const file = path.join(dir, 'event.json');
  writeFileSync(file, JSON.stringify({ pull_request: PR }));
  expect(readEventPayload({ GITHUB_EVENT_PATH: file })).toEqual({ pull_request: PR });
  expect(readEventPayload({})).toEqual({});
  expect(readEventPayload({ GITHUB_EVENT_PATH: path.join(dir, 'missing.json') })).toEqual({});
});
