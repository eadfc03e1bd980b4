import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  startGitHubServer,
  type FakeGitHub,
  type SurfaceStep,
} from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { makeFixtureRepo, PR_DIFF, PR_EVENT } from '../helpers/fixture-repo.js';
import { tmpDir } from '../helpers/judge.js';

// Issue 32, item 8: an older run's edit that GitHub applies after the newer run's last check.

let judge: FakeOpenAI;
let github: FakeGitHub;
beforeEach(async () => {
  judge = await startOpenAIServer();
  github = await startGitHubServer({
    pullRequest: { number: 7, title: 'Add search', body: 'Implements search', diff: PR_DIFF, files: [] },
  });
});
afterEach(async () => {
  await judge.close();
  await github.close();
});

const run = (workspace: string, runId: number) =>
  runAction({
    workspace,
    inputs: {
      rubric: 'RUBRIC.md',
      'judge-base-url': judge.url,
      'judge-api-key': 'sk-surface-0000',
      'github-token': 'ghs_workflow_token_0001',
      'cache-dir': '',
    },
    event: PR_EVENT,
    apiUrl: github.url,
    env: { GITHUB_RUN_ID: String(runId), GITHUB_RUN_ATTEMPT: '1' },
  });

const own = () => github.state.comments.filter((c) => c.user?.login === 'github-actions[bot]');

/** The newer run has written and then listed the comments once more (its check after writing). */
function newerChecked(): boolean {
  const reqs = github.state.requests;
  const wrote = reqs.findIndex(
    (q) => q.method === 'PATCH' && JSON.stringify(q.body).includes('rubric-eval-run:101.'),
  );
  return (
    wrote >= 0 &&
    reqs.slice(wrote + 1).some((q) => q.method === 'GET' && q.path.endsWith('/issues/7/comments'))
  );
}

test("an older run's edit that lands after the newer run's check is written over: the newest run is shown", async () => {
  const workspace = makeFixtureRepo();
  await run(workspace, 99);
  // The older run's edit reaches GitHub first but is applied only once the newer run has written
  // and checked: as a slow PATCH (or a retried one) is.
  const lateEdit: SurfaceStep = {
    method: 'PATCH',
    path: /\/issues\/comments\/\d+$/,
    body: /rubric-eval-run:100\./,
    times: 1,
    until: newerChecked,
    delayMs: 150,
  };
  github.state.script.push(lateEdit);
  // The newer run reports only once the older run's edit is on its way.
  const flag = path.join(tmpDir('re-flag-'), 'older-sent');
  const wait = `node -e "const fs=require('fs');setInterval(()=>{if(fs.existsSync('${flag}'))process.exit(0)},50)"`;
  const older = run(makeFixtureRepo({ gates: ['node -e "process.exit(3)"'] }), 100);
  const poll = setInterval(() => {
    if (lateEdit.times === 0) writeFileSync(flag, '');
  }, 20);
  const newer = await run(makeFixtureRepo({ gates: [wait] }), 101);
  const late = await older;
  clearInterval(poll);
  expect([late.code, newer.code]).toEqual([1, 0]);
  expect(lateEdit.times).toBe(0);
  const comments = own();
  expect(comments).toHaveLength(1);
  expect(comments[0]!.body).toContain('<!-- rubric-eval-run:101.1 -->');
  expect(comments[0]!.body).toContain('rubric-eval: **pass**');
  expect(newer.stdout).toContain('the PR comment showed an older run than this one');
});

test('an older run that reads the comment right before its edit leaves a newer report alone', async () => {
  const workspace = makeFixtureRepo();
  await run(workspace, 99);
  // The newer run writes between the older run's list and its edit.
  const olderList: SurfaceStep = {
    method: 'GET',
    path: /\/issues\/comments\/\d+$/,
    times: 1,
    until: () => own().some((c) => c.body.includes('rubric-eval-run:101.')),
  };
  github.state.script.push(olderList);
  const older = run(makeFixtureRepo({ gates: ['node -e "process.exit(3)"'] }), 100);
  const flag = path.join(tmpDir('re-flag-'), 'older-listed');
  const poll = setInterval(() => {
    if (olderList.times === 0) writeFileSync(flag, '');
  }, 20);
  const wait = `node -e "const fs=require('fs');setInterval(()=>{if(fs.existsSync('${flag}'))process.exit(0)},50)"`;
  const newer = await run(makeFixtureRepo({ gates: [wait] }), 101);
  const late = await older;
  clearInterval(poll);
  expect([late.code, newer.code]).toEqual([1, 0]);
  expect(late.stdout).toContain('a newer run of this PR has already reported');
  expect(
    github.state.requests.filter((q) => q.method === 'PATCH' && JSON.stringify(q.body).includes('run:100.')),
  ).toEqual([]);
  expect(own()).toHaveLength(1);
  expect(own()[0]!.body).toContain('<!-- rubric-eval-run:101.1 -->');
});
