import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { readResults } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

/** A file elsewhere on the runner, in the shape the catalog reads, holding a secret. */
const OUTSIDE = '- id: mock\n  label: RUNNER-SECRET-7f3a\n  response: "RUNNER-SECRET-7f3a"\n';

test.each(['providers.yaml', 'config.yaml'])(
  'a .agentv/%s that links out of the checkout is refused naming the file; nothing of its target reaches any report',
  async (name) => {
    judge = await startOpenAIServer();
    const elsewhere = path.join(tmpDir('re-elsewhere-'), 'secret.yaml');
    writeFileSync(
      elsewhere,
      name === 'config.yaml'
        ? `providers:\n${OUTSIDE.replace(/^/gm, '  ')}\ndefaults: { provider: RUNNER-SECRET-7f3a }\n`
        : OUTSIDE,
    );
    const workspace = tmpDir('re-reads-');
    mkdirSync(path.join(workspace, 'evals'));
    mkdirSync(path.join(workspace, '.agentv'));
    writeFileSync(
      path.join(workspace, 'evals/suite.yaml'),
      'tests:\n  - description: one\n    vars: { question: hi }\n    assert:\n      - type: contains\n        value: hi\n',
    );
    symlinkSync(elsewhere, path.join(workspace, '.agentv', name));
    const run = await runAction({
      workspace,
      inputs: {
        suites: 'evals/*.yaml',
        'judge-base-url': judge.url,
        'judge-api-key': 'sk-e2e-judge-key-000111',
        'cache-dir': '',
      },
      eventName: 'push',
    });
    const results = readResults(workspace);
    expect(results.errors.join('\n')).toMatch(
      new RegExp(
        `\\.agentv/${name.replace('.', '\\.')}: \\.agentv/${name.replace('.', '\\.')} is a link to a place outside the workspace: refused`,
      ),
    );
    for (const text of [
      JSON.stringify(results),
      run.summary,
      run.stdout,
      JSON.stringify(judge.state.requests),
    ])
      expect(text).not.toContain('RUNNER-SECRET-7f3a');
    expect(run.code).toBe(1);
  },
);
