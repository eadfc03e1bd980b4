import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { Workspace } from '../../../src/core/workspace.js';
import { tmpDir } from '../../helpers/judge.js';
import { loadNunjucks } from '../../../src/suite/agentv5/nunjucks-render.js';

// Nunjucks is loaded on demand (the suite loaders do it through withNunjucks); these tests call the loader directly.
beforeAll(() => loadNunjucks());

/** promptfoo's own configuration, read as promptfoo reads it (or refused by name). */
function load(yaml: string, files: Record<string, string> = {}) {
  const root = tmpDir('re-pf-config-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
  writeFileSync(path.join(root, 'promptfooconfig.yaml'), yaml);
  const r = loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root));
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  const warnings = r.diagnostics.filter((d) => d.severity === 'warning');
  return { r, errors, warnings, cases: r.suite?.cases ?? [] };
}

const errorsOf = (x: ReturnType<typeof load>) => x.errors.map((d) => `${d.line} ${d.rule} ${d.message}`);

test('a test with no assert runs for its output (promptfoo), with a warning saying so', () => {
  const x = load('prompts: ["Say {{ word }}"]\ntests:\n  - vars: { word: hi }\n');
  expect(x.errors).toEqual([]);
  expect(x.cases).toHaveLength(1);
  expect(x.cases[0]!.evaluators).toEqual([]);
  expect(x.warnings.map((w) => `${w.line} ${w.rule}`)).toEqual(['3 output-only']);
});

test('a provider object {id, label, config} is the model its id names, under its label', () => {
  const x = load(`providers:
  - id: openai:chat:gpt-4.1-mini
    label: mini
    config: { temperature: 0, max_tokens: 200, seed: 7 }
prompts: ["{{ q }}"]
tests:
  - vars: { q: hi }
    assert: [{ type: contains, value: hi }]
`);
  expect(x.errors).toEqual([]);
  expect(x.r.suite!.target).toBe('mini');
  expect(x.r.suite!.providers![0]).toMatchObject({
    kind: 'openai',
    label: 'mini',
    raw: {
      model: 'gpt-4.1-mini',
      temperature: 0,
      max_output_tokens: 200,
      api_key: '{{ env.OPENAI_API_KEY }}',
    },
  });
  expect(x.warnings.map((w) => `${w.line} ${w.rule} ${w.message}`)).toEqual([
    "4 unread-setting provider config `seed` is not read by rubric-eval's openai target",
  ]);
});

test('`openai:responses:<model>` is the Responses API (an openai target with `api: responses`); a plain id reads OPENAI_BASE_URL', () => {
  for (const given of [
    'providers: [openai:responses:gpt-4.1]',
    'providers: [{ id: "openai:responses:gpt-4.1" }]',
  ]) {
    const x = load(`${given}\ntests:\n  - vars: { input: hi }\n    assert: [{ type: is-json }]\n`);
    expect(errorsOf(x)).toEqual([]);
    expect(x.r.suite!.providers![0]).toMatchObject({
      kind: 'openai',
      raw: { model: 'gpt-4.1', api: 'responses' },
    });
  }
  expect(
    load('providers: [openai:gpt-4.1-mini]\ntests: [{ vars: { input: hi } }]\n').r.suite!.providers![0],
  ).toMatchObject({
    kind: 'openai',
    raw: { model: 'gpt-4.1-mini', base_url_env: ['OPENAI_BASE_URL', 'OPENAI_API_BASE_URL'] },
  });
  expect(errorsOf(load('providers: [openai:embedding:e]\ntests: [{ vars: { input: hi } }]\n'))).toEqual([
    "1 unsupported-provider provider 'openai:embedding:e' is OpenAI's embedding API (not a chat model), not run by rubric-eval",
  ]);
});

test('prompt objects {id: file://…, label}; a text prompts file split on `---` lines', () => {
  const x = load(
    `prompts:
  - { id: file://short.txt, label: short }
  - file://many.txt
tests:
  - id: t
    vars: { q: hi }
    assert: [{ type: contains, value: hi }]
`,
    { 'short.txt': 'Q: {{ q }}', 'many.txt': 'First {{ q }}\n---\nSecond {{ q }}\n' },
  );
  expect(x.errors).toEqual([]);
  expect(x.cases.map((c) => [c.id, (c.inputMessages[0]!.parts[0] as { text: string }).text])).toEqual([
    ['t__prompt_short', 'Q: hi'],
    ['t__prompt_prompt-2-1', 'First hi'],
    ['t__prompt_prompt-2-2', 'Second hi'],
  ]);
});

test('Nunjucks renders prompts as promptfoo does: a JSON chat template with a loop becomes its messages', () => {
  const x = load(
    `prompts: [file://chat.json, "{{ q | upper }}{% if extra %} ({{ extra }}){% endif %}"]
tests:
  - vars:
      q: why?
      turns: [{ role: user, content: hi }, { role: assistant, content: hello }]
    assert: [{ type: contains, value: "{{ q | upper }}" }]
`,
    {
      'chat.json':
        '[{"role": "system", "content": "Be brief"}{% for t in turns %}, {"role": "{{ t.role }}", "content": "{{ t.content }}"}{% endfor %}, {"role": "user", "content": "{{ q }}"}]',
    },
  );
  expect(x.errors).toEqual([]);
  const [chat, text] = x.cases;
  expect(chat!.inputMessages.map((m) => `${m.role}: ${(m.parts[0] as { text: string }).text}`)).toEqual([
    'system: Be brief',
    'user: hi',
    'assistant: hello',
    'user: why?',
  ]);
  expect(text!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'WHY?' }]);
  expect(chat!.evaluators[0]).toMatchObject({ values: ['WHY?'] });
});

test('Nunjucks reaches no file and no environment variable', () => {
  const x = load('prompts: ["{% include \'secret.txt\' %}"]\ntests: [{ vars: { q: a } }]\n', {
    'secret.txt': 'do not read',
  });
  expect(x.errors.map((d) => `${d.line} ${d.rule} ${d.message}`)).toEqual([
    "2 template the prompt 'prompt-1' does not render: template not found: secret.txt",
  ]);
  process.env.RUBRIC_EVAL_TEST_SECRET = 'hunter2-secret';
  const y = load('prompts: ["[{{ env.RUBRIC_EVAL_TEST_SECRET | upper }}]"]\ntests: [{ vars: { q: a } }]\n');
  delete process.env.RUBRIC_EVAL_TEST_SECRET;
  expect(y.errors).toEqual([]);
  expect(y.cases[0]!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: '[]' }]);
});

test('array vars expand into one test per combination', () => {
  const x = load(`prompts: ["{{ city }} in {{ lang }}"]
tests:
  - id: t
    vars: { city: [Paris, Rome], lang: [en, fr], _note: [kept, as, is] }
    assert: [{ type: contains, value: "{{ city }}" }]
`);
  expect(x.errors).toEqual([]);
  expect(x.cases.map((c) => `${c.id}: ${(c.inputMessages[0]!.parts[0] as { text: string }).text}`)).toEqual([
    't-1: Paris in en',
    't-2: Paris in fr',
    't-3: Rome in en',
    't-4: Rome in fr',
  ]);
  expect(x.cases[2]!.evaluators[0]).toMatchObject({ values: ['Rome'] });
  // AgentV's `input` / `expected_output` lists are one value (a conversation, a structured answer).
  const agentv = load('tests:\n  - id: a\n    vars: { input: [one, two], expected_output: [x, y] }\n');
  expect(agentv.errors).toEqual([]);
  expect(agentv.cases.map((c) => c.id)).toEqual(['a']);
});

test('scenarios: each config row crossed with each test, vars merged, assertions concatenated', () => {
  const x = load(`prompts: ["Translate {{ phrase }} to {{ language }}"]
scenarios:
  - description: translations
    config:
      - vars: { language: French }
        assert: [{ type: icontains, value: bonjour, metric: fr }]
      - vars: { language: Spanish }
    tests:
      - id: hello
        vars: { phrase: Hello }
        assert: [{ type: is-json }]
`);
  expect(x.errors).toEqual([]);
  expect(x.cases.map((c) => [c.id, (c.inputMessages[0]!.parts[0] as { text: string }).text])).toEqual([
    ['hello-1', 'Translate Hello to French'],
    ['hello-2', 'Translate Hello to Spanish'],
  ]);
  expect(x.cases[0]!.evaluators.map((e) => e.name)).toEqual(['fr', 'is-json-2']);
  expect(x.cases[0]!.expectedOutcome).toBe('translations');
  expect(errorsOf(load('prompts: ["{{ a }}"]\nscenarios: [file://s.yaml]\n'))).toEqual([
    "2 unsupported-scenarios-file scenarios from a file ('file://s.yaml') are not read; write the scenario inline",
  ]);
});

test('`$ref` to an assertion template is resolved; an unknown one is named', () => {
  const x = load(`assertionTemplates:
  polite: { type: llm-rubric, value: Is polite, metric: polite }
prompts: ["{{ q }}"]
tests:
  - vars: { q: hi }
    assert:
      - $ref: "#/assertionTemplates/polite"
        weight: 2
`);
  expect(x.errors).toEqual([]);
  expect(x.cases[0]!.evaluators[0]).toMatchObject({
    name: 'polite',
    weight: 2,
    rubricScore: { rubric: 'Is polite' },
  });
  const bad = load(`prompts: ["{{ q }}"]
tests:
  - vars: { q: hi, _conversation: [] }
    assert:
      - $ref: "#/assertionTemplates/missing"
`);
  // `_conversation` is data for conversation-relevance (promptfoo-model-graded.test.ts).
  expect(errorsOf(bad)).toEqual([
    "5 ref assertion template 'missing' is not defined in `assertionTemplates`",
    '5 type an assertion is a string criterion or an object with `type`',
  ]);
});

test('promptfoo features that change the answer or the grade are refused by name where written; a named grader is ignored with a warning', () => {
  const x = load(`derivedMetrics: [{ name: x, value: a + b }]
prompts: ["{{ q }}"]
tests:
  - vars: { q: hi }
    provider: openai:gpt-4.1
    options: { postprocess: output.trim(), provider: openai:gpt-4o }
    assert:
      - { type: llm-rubric, value: ok, provider: openai:gpt-4.1 }
      - { type: script, command: [node, s.js], provider: { max_calls: 3 } }
`);
  expect(x.errors.map((d) => `${d.line} ${/'([^']+)'/.exec(d.message)?.[1]}`)).toEqual([
    '5 provider',
    '6 options.postprocess',
  ]);
  expect(x.warnings.map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`)).toEqual([
    '1:1 ignored-key `derivedMetrics` is ignored: derived metrics are not computed (in promptfoo they are shown beside the results and decide no test’s pass or fail)',
    '6:44 grader-ignored `options.provider` (the grader) is ignored: every assertion is graded by the workflow’s judge (the judge inputs), never by a model the suite names',
    "8:40 grader-ignored the assertion's `provider` (its grader) is ignored: every assertion is graded by the workflow’s judge (the judge inputs), never by a model the suite names",
  ]);
});
