import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer, type FakeOpenAI } from '../../__fixtures__/servers/openai-server.mjs';
import { runEvaluation } from '../../src/pipeline/run.js';
import { validateRun } from '../../src/pipeline/validate.js';
import { ACTION_SETTINGS } from '../../src/core/setting-names.js';
import { engineConfig } from '../helpers/engine.js';
import { tmpDir } from '../helpers/judge.js';
import { agentvCorpusCopy } from '../helpers/corpus-copy.js';
import { corpusTest } from '../helpers/paths.js';

let judge: FakeOpenAI;
beforeEach(async () => {
  judge = await startOpenAIServer();
});
afterEach(async () => judge.close());

const MOCK_CLI_PY = `#!/usr/bin/env python3
# Stands in for AgentV's mock_cli.py: same command line (--prompt, --file, --output, --healthcheck).
import argparse, json, os, sys
p = argparse.ArgumentParser()
p.add_argument('--prompt')
p.add_argument('--file', action='append', default=[])
p.add_argument('--output')
p.add_argument('--healthcheck', action='store_true')
a = p.parse_args()
log = os.environ.get('MOCK_CLI_LOG')
if log:
    with open(log, 'a') as f:
        f.write(json.dumps({'prompt': a.prompt, 'files': a.file, 'healthcheck': a.healthcheck, 'cwd': os.getcwd()}) + '\\n')
if a.healthcheck:
    print('ok')
    sys.exit(0)
names = [os.path.basename(f) for f in a.file]
text = 'Attachments detected (%d): %s.' % (len(names), ', '.join(names))
with open(a.output, 'w') as f:
    json.dump({'text': text, 'token_usage': {'input': 12, 'output': 8}}, f)
`;

corpusTest(
  'corpus local-cli runs end to end with our stand-in for mock_cli.py, judged by the workflow’s judge: its judge_target (azure) is ignored with a located warning',
  async () => {
    const root = agentvCorpusCopy('re-localcli-');
    writeFileSync(path.join(root, 'local-cli/mock_cli.py'), MOCK_CLI_PY);
    // `uv run ./mock_cli.py ...` as written in targets.yaml: a uv shim runs it with python3.
    const bin = path.join(root, '.bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'uv'), '#!/bin/sh\n[ "$1" = run ] && shift\nexec python3 "$@"\n');
    chmodSync(path.join(bin, 'uv'), 0o755);
    const log = path.join(root, 'calls.jsonl');
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      MOCK_CLI_LOG: log,
      AZURE_OPENAI_ENDPOINT: judge.origin,
      AZURE_OPENAI_API_KEY: 'azure-test-key-000',
      AZURE_DEPLOYMENT_NAME: 'judge-deployment',
      AZURE_OPENAI_API_VERSION: '2024-12-01-preview',
    };
    const { results } = await runEvaluation(
      engineConfig(root, judge.url, { suites: ['local-cli/evals/dataset.yaml'] }),
      { env },
    );
    expect(results.errors).toEqual([]);
    expect(results.warnings).toEqual([
      "local-cli/.agentv/targets.yaml:11:19 warning: target 'local_cli': judge-target-ignored: judge_target 'azure_base' is ignored: every case is judged by the workflow's judge (the judge inputs), never by a model the checkout names",
    ]);
    const c = results.suites[0]!.cases[0]!;
    expect(c).toMatchObject({
      id: 'cli-provider-echo',
      target: 'local_cli',
      verdict: 'pass',
      answer: 'Attachments detected (2): python.instructions.md, example.txt.',
    });
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls[0]).toMatchObject({ healthcheck: true, cwd: path.join(root, 'local-cli') });
    expect(calls[1].prompt).toBe(
      '<file: path="python.instructions.md">\n\nPlease echo this request in one short sentence and mention all attached files by name.\n\n<file: path="example.txt">',
    );
    expect(calls[1].files).toEqual([
      path.join(root, 'local-cli/evals/python.instructions.md'),
      path.join(root, 'local-cli/evals/example.txt'),
    ]);
    // The judge was the workflow's (the config's key on the OpenAI route), not the azure judge_target.
    expect(judge.state.requests).toHaveLength(1);
    expect(judge.state.requests[0]!.url).toBe('/v1/chat/completions');
    expect(judge.state.requests[0]!.headers.authorization).toBe('Bearer sk-test-judge-0000');
    expect(judge.state.requests[0]!.headers['api-key']).toBeUndefined();
  },
);

function repo(targetsYaml: string, suiteYaml: string): string {
  const root = tmpDir('re-targets-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'targets.yaml'), targetsYaml);
  writeFileSync(path.join(root, 'evals/s.yaml'), suiteYaml);
  return root;
}

const TWO_CASES = `execution:
  target: suite_t
evalcases:
  - id: a
    input: question a
    rubrics: [Answers]
  - id: b
    input: question b
    execution:
      target: case_t
    rubrics: [Answers]
`;
const MOCKS = ['default', 'suite_t', 'case_t', 'input_t']
  .map((n) => `  - name: ${n}\n    provider: mock\n    response: from ${n}\n`)
  .join('');

describe('target selection order: input target, case, suite, default', () => {
  test.each([
    ['suite and case', TWO_CASES, null, ['from suite_t', 'from case_t']],
    ['input overrides all', TWO_CASES, 'input_t', ['from input_t', 'from input_t']],
    [
      'default when none named',
      'evalcases:\n  - id: a\n    input: q\n    rubrics: [x]\n',
      null,
      ['from default'],
    ],
    [
      'root target',
      'target: case_t\nevalcases:\n  - id: a\n    input: q\n    rubrics: [x]\n',
      null,
      ['from case_t'],
    ],
  ])('%s', async (_n, suite, target, answers) => {
    const root = repo(`targets:\n${MOCKS}`, suite);
    const { results } = await runEvaluation(
      engineConfig(root, judge.url, { suites: ['evals/*.yaml'], target }),
      { env: {} },
    );
    expect(results.suites[0]!.cases.map((c) => c.answer)).toEqual(answers);
  });
});

test('mock responses by case id', async () => {
  const root = repo(
    'targets:\n  - name: default\n    provider: mock\n    responses:\n      a: answer A\n',
    'evalcases:\n  - id: a\n    input: q\n    rubrics: [x]\n  - id: b\n    input: q\n    rubrics: [x]\n',
  );
  const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
    env: {},
  });
  expect(results.suites[0]!.cases.map((c) => [c.id, c.verdict, c.answer ?? c.error])).toEqual([
    ['a', 'pass', 'answer A'],
    ['b', 'error', "mock target 'default' has no response for case 'b'"],
  ]);
});

describe('${{ VAR }} values', () => {
  const targets =
    'targets:\n  - name: default\n    provider: mock\n    response: ${{ MOCK_ANSWER }}\n  - name: unused\n    provider: openai\n    api_key: ${{ NEVER_SET_KEY }}\n    model: gpt\n';
  const suite = 'evalcases:\n  - id: a\n    input: q\n    rubrics: [x]\n';
  test('set: read from the environment; unused targets are never resolved', async () => {
    const root = repo(targets, suite);
    const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
      env: { MOCK_ANSWER: 'from env' },
    });
    expect(results.errors).toEqual([]);
    // A value a template resolved to is a secret from then on: the answer that repeats it is redacted.
    expect(results.suites[0]!.cases[0]!.answer).toBe('***');
  });
  test('missing: the run fails before any call, naming the variable and the target', async () => {
    const root = repo(targets, suite);
    const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
      env: {},
    });
    expect(results.errors).toEqual([
      "targets.yaml:4:15 target 'default': missing-env: environment variable MOCK_ANSWER (for 'response') is not set",
    ]);
    expect(judge.state.requests).toHaveLength(0);
  });
  test.each([
    ['the GitHub token', 'GITHUB_TOKEN', 'ghs_workflow_token_1'],
    ['the runtime token', 'ACTIONS_RUNTIME_TOKEN', 'runtime-token-value-2'],
    ['the OIDC request token', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'oidc-request-token-3'],
    ['an action input', 'INPUT_GITHUB_TOKEN', 'sk-input-value-4'],
    ['the judge key, under any name', 'MY_COPY_OF_THE_KEY', 'sk-test-judge-0000'],
  ])(
    'withheld: %s is not a template’s to read; the run fails before any call, saying why',
    async (_, name, value) => {
      const root = repo(targets.replace('MOCK_ANSWER', name), suite);
      const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
        env: { [name]: value },
      });
      expect(results.errors).toEqual([
        `targets.yaml:4:15 target 'default': withheld-env: environment variable ${name} (for 'response') is withheld from targets: a template sees only what a gate's process gets (no GitHub token, judge key, INPUT_* or ACTIONS_* variable); give the target a variable of its own`,
      ]);
      expect(JSON.stringify(results)).not.toContain(value);
      expect(judge.state.requests).toHaveLength(0);
    },
  );
});

test('an unsupported provider used by a case is rejected at load, naming target, provider and the supported ones', async () => {
  const root = repo(
    'targets:\n  - name: default\n    provider: vscode\n',
    'evalcases:\n  - id: a\n    input: q\n',
  );
  const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
    env: {},
  });
  expect(results.errors).toEqual([
    "targets.yaml:3:15 target 'default': unsupported-provider: provider 'vscode' is not supported by rubric-eval (supported: mock, echo, cli, openai, azure, azure-openai); produce the answers in an earlier step and pass them with `answers-file`, or use a cli target",
  ]);
  expect(judge.state.requests).toHaveLength(0);
});

describe('cli provider', () => {
  const suite =
    'evalcases:\n  - id: a\n    input: first question\n    rubrics: [x]\n  - id: b\n    input: second question\n    rubrics: [x]\n';
  const cli = (template: string, extra = '') =>
    `targets:\n  - name: default\n    provider: cli\n    command_template: ${JSON.stringify(template)}\n${extra}`;
  const run = async (targets: string) => {
    const root = repo(targets, suite);
    writeFileSync(
      path.join(root, 'bot.mjs'),
      `import { writeFileSync } from 'node:fs';
const [mode, id, out] = process.argv.slice(2);
if (mode === 'json') writeFileSync(out, JSON.stringify({ text: 'json answer ' + id, token_usage: { input: 3, output: 4 } }));
if (mode === 'messages') writeFileSync(out, JSON.stringify({ output_messages: [{ role: 'assistant', content: 'from messages ' + id }] }));
if (mode === 'plain') writeFileSync(out, 'plain answer ' + id + '\\n');
if (mode === 'stdout') console.log('stdout answer ' + id);
if (mode === 'fail') { if (id === 'b') { console.error('boom: model overloaded'); process.exit(3); } writeFileSync(out, 'ok ' + id); }
if (mode === 'slow') { if (id === 'b') await new Promise((r) => setTimeout(r, 30000)); writeFileSync(out, 'ok ' + id); }
`,
    );
    return (
      await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'], gateTimeoutMs: 1000 }), {
        env: { PATH: process.env.PATH },
      })
    ).results;
  };
  test('{OUTPUT_FILE} as JSON {text}', async () => {
    const r = await run(cli('node bot.mjs json {EVAL_ID} {OUTPUT_FILE}'));
    expect(r.suites[0]!.cases.map((c) => c.answer)).toEqual(['json answer a', 'json answer b']);
  });
  test('{OUTPUT_FILE} as JSON {output_messages}', async () => {
    const r = await run(cli('node bot.mjs messages {EVAL_ID} {OUTPUT_FILE}'));
    expect(r.suites[0]!.cases.map((c) => c.answer)).toEqual(['from messages a', 'from messages b']);
  });
  test('{OUTPUT_FILE} as plain text', async () => {
    const r = await run(cli('node bot.mjs plain {EVAL_ID} {OUTPUT_FILE}'));
    expect(r.suites[0]!.cases.map((c) => c.answer)).toEqual(['plain answer a', 'plain answer b']);
  });
  test('stdout when the template has no {OUTPUT_FILE}', async () => {
    const r = await run(cli('node bot.mjs stdout {EVAL_ID}'));
    expect(r.suites[0]!.cases.map((c) => c.answer)).toEqual(['stdout answer a', 'stdout answer b']);
  });
  test('a non-zero exit is a case error quoting the output; the other case completes', async () => {
    const r = await run(cli('node bot.mjs fail {EVAL_ID} {OUTPUT_FILE}'));
    expect(r.suites[0]!.cases.map((c) => [c.id, c.verdict])).toEqual([
      ['a', 'pass'],
      ['b', 'error'],
    ]);
    expect(r.suites[0]!.cases[1]!.error).toBe("target 'default' exit code 3:\nboom: model overloaded");
    expect(r.verdict).toBe('fail');
  });
  test('a timeout is a case error; the other case completes', async () => {
    const r = await run(cli('node bot.mjs slow {EVAL_ID} {OUTPUT_FILE}', '    timeout_seconds: 1\n'));
    expect(r.suites[0]!.cases.map((c) => [c.id, c.verdict])).toEqual([
      ['a', 'pass'],
      ['b', 'error'],
    ]);
    expect(r.suites[0]!.cases[1]!.error).toBe("target 'default' timed out after 1 s and was killed");
  });
  test('{PROMPT} is one shell word whatever it contains', async () => {
    const root = repo(
      cli('node -e "require(\'fs\').writeFileSync(process.argv[2], process.argv[1])" {PROMPT} {OUTPUT_FILE}'),
      'evalcases:\n  - id: a\n    input: "it\'s $(rm -rf /) `x` \\"q\\""\n    rubrics: [x]\n',
    );
    const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
      env: { PATH: process.env.PATH },
    });
    expect(results.suites[0]!.cases[0]!.answer).toBe('it\'s $(rm -rf /) `x` "q"');
  });
});

test('an openai target receives the rendered messages, files as <file> blocks', async () => {
  const app = await startOpenAIServer({ respond: () => ({ content: 'model answer' }) });
  try {
    const root = repo(
      `targets:\n  - name: default\n    provider: openai\n    endpoint: ${app.url}\n    api_key: \${{ APP_KEY }}\n    model: app-model\n    temperature: 0.3\n`,
      'evalcases:\n  - id: a\n    input:\n      - role: system\n        content: Be brief.\n      - role: user\n        content:\n          - type: text\n            value: Summarise\n          - type: file\n            value: doc.txt\n    rubrics: [x]\n',
    );
    writeFileSync(path.join(root, 'evals/doc.txt'), 'The doc.\r\n');
    const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
      env: { APP_KEY: 'app-key-123456' },
    });
    expect(results.suites[0]!.cases[0]!.answer).toBe('model answer');
    const body = app.state.requests[0]!.body;
    expect(body.model).toBe('app-model');
    expect(body.temperature).toBe(0.3);
    expect(body.response_format).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Summarise\n\n<file path="evals/doc.txt">\nThe doc.\n</file>' },
    ]);
    expect(app.state.requests[0]!.headers.authorization).toBe('Bearer app-key-123456');
  } finally {
    await app.close();
  }
});

test('answers-file: recorded answers are used; a case with no answer is an error naming the id', async () => {
  const root = repo(
    'targets: []\n',
    'evalcases:\n  - id: a\n    input: q\n    rubrics: [x]\n  - id: b\n    input: q\n    rubrics: [x]\n',
  );
  writeFileSync(
    path.join(root, 'answers.jsonl'),
    '{"eval_id": "a", "candidate_answer": "recorded A", "score": 1}\n',
  );
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, { suites: ['evals/*.yaml'], answersFile: 'answers.jsonl' }),
    { env: {} },
  );
  expect(results.suites[0]!.cases.map((c) => [c.id, c.verdict, c.answer ?? c.error])).toEqual([
    ['a', 'pass', 'recorded A'],
    ['b', 'error', "no answer for case 'b' in answers-file answers.jsonl"],
  ]);
});

corpusTest("AgentV's own results files work as answers-file", async () => {
  const root = agentvCorpusCopy('re-baseline-');
  const { results } = await runEvaluation(
    engineConfig(root, judge.url, {
      suites: ['rubric/evals/dataset.yaml'],
      answersFile: 'rubric/evals/dataset.baseline.jsonl',
    }),
    { env: {} },
  );
  expect(results.errors).toEqual([]);
  const answered = results.suites[0]!.cases.filter((c) => c.answer !== null).map((c) => c.id);
  expect(answered).toEqual([
    'code-explanation-simple',
    'technical-writing-detailed',
    'code-quality-multi-eval',
    'summary-task',
  ]);
  expect(
    results.suites[0]!.cases.find((c) => c.id === 'summary-multi-criteria-score-ranges-proposed')!.error,
  ).toMatch(/no answer for case/);
});

test('each case is answered once even with several evaluators, under the shared limit', async () => {
  const root = repo(
    'targets:\n  - name: default\n    provider: cli\n    command_template: "echo x >> calls.log; echo answer"\n    cwd: .\n',
    'evalcases:\n  - id: a\n    input: q\n    rubrics: [x]\n    execution:\n      evaluators:\n        - name: j1\n          type: llm_judge\n        - name: j2\n          type: llm_judge\n',
  );
  const { results } = await runEvaluation(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
    env: { PATH: process.env.PATH },
  });
  expect(results.suites[0]!.cases[0]!.evaluators.map((e) => e.name)).toEqual(['rubric', 'j1', 'j2']);
  expect(readFileSync(path.join(root, 'calls.log'), 'utf8')).toBe('x\n');
  expect(judge.state.requests).toHaveLength(3);
});

test('validate, where secrets are not set: a withheld variable is still an error (no run will see it); an unset one only warns', async () => {
  const root = repo(
    'targets:\n  - name: default\n    provider: mock\n    response: ${{ ACTIONS_RUNTIME_TOKEN }}\n  - name: other\n    provider: mock\n    response: ${{ NOT_SET_HERE }}\n',
    'evalcases:\n  - id: a\n    input: q\n  - id: b\n    input: q\n    execution:\n      target: other\n',
  );
  const r = await validateRun(engineConfig(root, judge.url, { suites: ['evals/*.yaml'] }), {
    env: {},
    settings: ACTION_SETTINGS,
  });
  expect(r.diagnostics.map((d) => `${d.severity} ${d.rule}`)).toEqual([
    'error withheld-env',
    'warning missing-env',
  ]);
});
