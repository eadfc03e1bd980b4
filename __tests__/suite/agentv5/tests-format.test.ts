import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { Workspace } from '../../../src/core/workspace.js';
import { REPO_ROOT } from '../../helpers/paths.js';

function load(yaml: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tests-format-'));
  const file = path.join(dir, 'suite.yaml');
  writeFileSync(file, yaml);
  return loadSuiteFile(file, new Workspace(dir));
}

const SUITE = `prompts:
  - "Answer: {{ question }}"
providers:
  - id: cli
    label: local
    command: ./answer.sh {PROMPT}
threshold: 0.6
default_test:
  vars: { question: default }
  assert:
    - type: icontains
      value: "{{ question }}"
tests:
  - id: a
    vars: { question: Paris }
    assert:
      - type: contains
        value: Paris
      - The answer names the capital.
      - It is one sentence.
  - id: b
    threshold: 0.9
    assert:
      - type: not-contains
        value: London
      - { type: regex, value: "^A", weight: 2, required: true }
`;

describe('AgentV 5 / promptfoo suites', () => {
  test("vars render into the prompt; default_test's assertions follow the test's (AgentV 5); strings become one weighted checklist", () => {
    const r = load(SUITE);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const [a, b] = r.suite!.cases;
    expect(r.suite!.target).toBe('local');
    expect(a!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'Answer: Paris' }]);
    expect(a!.evaluators.map((e) => `${e.type}:${e.weight}`)).toEqual([
      'text_assertion:1',
      'llm_judge:2',
      'text_assertion:1',
    ]);
    const first = a!.evaluators[0]!;
    expect(first.type === 'text_assertion' && first.values).toEqual(['Paris']);
    // The test's own checklist reads a judge's stated score as AgentV 5 does.
    expect(a!.evaluators[1]).toMatchObject({ name: 'criteria', statedScore: true });
    const inherited = a!.evaluators[2]!;
    expect(inherited.type === 'text_assertion' && [inherited.check, inherited.values]).toEqual([
      'icontains',
      ['Paris'],
    ]);
    expect(b!.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'Answer: default' }]);
    expect(b!.evaluators[0]).toMatchObject({ check: 'contains', negate: true });
    expect(b!.evaluators[1]).toMatchObject({ check: 'regex', weight: 2, required: true });
    expect(b!.evaluators[2]).toMatchObject({ check: 'icontains' });
  });

  test('threshold precedence: the test, then default_test, then the suite, then 0.8', () => {
    const [a, b] = load(SUITE).suite!.cases;
    expect(a!.scoring).toEqual({ kind: 'threshold', threshold: 0.6 });
    expect(b!.scoring).toEqual({ kind: 'threshold', threshold: 0.9 });
    const withDefault = load(SUITE.replace('default_test:\n', 'default_test:\n  threshold: 0.7\n'));
    expect(withDefault.suite!.cases[0]!.scoring!.threshold).toBe(0.7);
    const bare = load(
      'prompts: ["{{ input }}"]\ntests:\n  - id: x\n    vars: { input: hi }\n    assert: [{ type: is-json }]\n',
    );
    // No AgentV spelling and a `prompts:` key: promptfoo's rule, a threshold only where one is written.
    expect(bare.suite!.cases[0]!.scoring).toEqual({ kind: 'promptfoo', threshold: null });
  });

  test('an assertion type we do not run, and a bad regex, are named at file:line:col', () => {
    const r = load(
      'prompts: ["{{ input }}"]\ntests:\n  - id: x\n    vars: { input: hi }\n    assert:\n      - type: similar:dot\n        value: hi\n      - type: regex\n        value: "("\n',
    );
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((e) => `${e.line}:${e.column} ${e.rule}`)).toEqual([
      '6:9 unsupported-assertion',
      '9:16 regex',
    ]);
    expect(errors[0]!.message).toContain("'similar:dot'");
  });

  test('a provider kind that cannot run here is refused by name', () => {
    const r = load(
      'providers:\n  - id: claude-cli\nprompts: ["{{ input }}"]\ntests:\n  - id: x\n    vars: { input: hi }\n    assert: [{ type: is-json }]\n',
    );
    const e = r.diagnostics.find((d) => d.severity === 'error')!;
    expect(e.rule).toBe('unsupported-provider');
    expect(e.message).toContain("'claude-cli'");
    expect(r.suite).toBeUndefined();
  });
});

test('promptfoo spelling: defaultTest, and an `openai:<model>` provider id read with OPENAI_API_KEY', () => {
  const r = load(
    'providers: ["openai:gpt-4.1-mini"]\nprompts: ["{{ q }}"]\ndefaultTest:\n  vars: { q: hi }\n  assert: [{ type: contains, value: hello }]\ntests:\n  - vars: {}\n',
  );
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(r.suite!.target).toBe('openai:gpt-4.1-mini');
  expect(r.suite!.providers![0]).toMatchObject({
    kind: 'openai',
    raw: { model: 'gpt-4.1-mini', api_key: '{{ env.OPENAI_API_KEY }}' },
  });
  const c = r.suite!.cases[0]!;
  expect(c.id).toBe('test-1');
  expect(c.inputMessages[0]!.parts).toEqual([{ type: 'text', text: 'hi' }]);
  expect(c.evaluators).toHaveLength(1);
});

test('several prompts: each test runs once per prompt, ids suffixed as AgentV does', () => {
  const r = load(
    'prompts:\n  - { id: terse, prompt: "Briefly: {{ q }}" }\n  - { id: chat, messages: [{ role: system, content: "Be kind" }, { role: user, content: "{{ q }}" }] }\ntests:\n  - id: t\n    vars: { q: why? }\n    assert: [{ type: icontains, value: because }]\n',
  );
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const [a, b] = r.suite!.cases;
  expect([a!.id, b!.id]).toEqual(['t__prompt_terse', 't__prompt_chat']);
  expect(a!.inputMessages.map((m) => m.role)).toEqual(['user']);
  expect(b!.inputMessages.map((m) => [m.role, m.parts])).toEqual([
    ['system', [{ type: 'text', text: 'Be kind' }]],
    ['user', [{ type: 'text', text: 'why?' }]],
  ]);
});

test('the examples in both formats of docs/agentv5-and-promptfoo.md load', () => {
  const section = readFileSync(path.join(REPO_ROOT, 'docs/agentv5-and-promptfoo.md'), 'utf8');
  const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(2);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tests-format-readme-'));
  mkdirSync(path.join(dir, '.agentv'));
  writeFileSync(
    path.join(dir, '.agentv/providers.yaml'),
    '- id: azure\n  label: llm\n  endpoint: x\n  api_key: y\n  model: z\n',
  );
  for (const [i, yaml] of blocks.entries()) {
    writeFileSync(path.join(dir, `suite-${i}.yaml`), yaml);
    const r = loadSuiteFile(path.join(dir, `suite-${i}.yaml`), new Workspace(dir));
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // The first is AgentV 5's (`default_test`, a catalog label), the second promptfoo's.
    expect(r.suite!.cases[0]!.scoring?.kind).toBe(i === 0 ? 'threshold' : 'promptfoo');
  }
});

test('a suite’s min_pass_rate is read as in a v2 suite, and refused outside 0..1 at its line', () => {
  const gated = load(`min_pass_rate: 0.75\n${SUITE}`);
  expect(gated.suite?.minPassRate).toBe(0.75);
  expect(load(SUITE).suite?.minPassRate).toBeUndefined();
  const bad = load(`min_pass_rate: 2\n${SUITE}`);
  expect(bad.suite).toBeUndefined();
  expect(bad.diagnostics.map((d) => `${d.line} ${d.message}`)).toContainEqual(
    expect.stringMatching(/^1 .*min_pass_rate must be between 0 and 1/),
  );
});

test("AgentV 5 checklists read a judge's stated score; score ranges and promptfoo-shaped files do not", () => {
  const assertions = `    assert:
      - Names the capital.
      - { type: llm-rubric, value: [Is short, Is polite], metric: listed }
      - type: llm-rubric
        metric: items
        value: [{ id: a, outcome: Names Paris }]
      - type: llm-rubric
        metric: ranged
        value: [{ id: r, outcome: Clear, score_ranges: [{ score_range: [0, 10], expected_outcome: any }] }]
`;
  const flags = (yaml: string) => {
    const r = load(yaml);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return r.suite!.cases[0]!.evaluators.map((e) => `${e.name}:${'statedScore' in e}`);
  };
  const agentv5 = `default_test: { vars: { input: q } }\ntests:\n  - id: t\n${assertions}`;
  expect(flags(agentv5)).toEqual(['criteria:true', 'listed:true', 'items:true', 'ranged:false']);
  const promptfoo = `prompts: ["{{ input }}"]\ntests:\n  - vars: { input: q }\n${assertions}`;
  expect(flags(promptfoo)).toEqual(['criteria:false', 'listed:false', 'items:false', 'ranged:false']);
});
