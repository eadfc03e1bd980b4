import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runAction } from '../helpers/action.js';
import { hostileRepo, readResults, warningsAbout } from '../helpers/hostile-repo.js';
import { tmpDir } from '../helpers/judge.js';

let judge: FakeOpenAI;
afterEach(async () => judge?.close());

/** What a failing gate puts at the step files' paths, in shell. */
const REPLACE = {
  symlink: (victim: string) => `ln -s ${JSON.stringify(victim)} "$F"`,
  folder: () => 'mkdir -p "$F/inside" && echo x > "$F/inside/file"',
  fifo: () => 'mkfifo "$F"',
};

test.each(Object.keys(REPLACE) as (keyof typeof REPLACE)[])(
  "a gate that replaces GITHUB_OUTPUT and GITHUB_STEP_SUMMARY with a %s: the step's verdict and summary still land in regular files, with a warning",
  async (kind) => {
    judge = await startOpenAIServer();
    const victim = path.join(tmpDir('re-victim-'), 'victim.txt');
    writeFileSync(victim, 'untouched');
    const gate = [
      'for F in "$GITHUB_OUTPUT" "$GITHUB_STEP_SUMMARY"; do',
      '  rm -f "$F"',
      `  ${REPLACE[kind](victim)}`,
      'done',
      'exit 1',
    ].join('\n');
    const workspace = hostileRepo({
      files: { 'gate.sh': gate, 'RUBRIC.md': '## Gates\n- `bash gate.sh`\n\n## Criteria\n- Small\n' },
    });
    const run = await runAction({
      workspace,
      inputs: {
        rubric: 'RUBRIC.md',
        'judge-base-url': judge.url,
        'judge-api-key': 'sk-judge-0004',
        'cache-dir': '',
      },
      eventName: 'push',
    });
    expect(readResults(workspace).rubric!.gates[0]!.verdict).toBe('fail');
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(run.outputs['results-file']).toBeDefined();
    expect(run.summary).toContain('rubric-eval: **fail**');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    const article = kind === 'fifo' ? 'a FIFO' : `a ${kind}`;
    for (const name of ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY'])
      expect(warningsAbout(run.stdout, `${name} (`)).toEqual([
        expect.stringContaining(
          `was ${article}, put there by code the run executed: replaced by a regular file`,
        ),
      ]);
  },
);
