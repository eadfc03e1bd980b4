import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuiteFile } from '../../../src/suite/load-suite.js';
import { Workspace } from '../../../src/core/workspace.js';
import { tmpDir } from '../../helpers/judge.js';
import { loadNunjucks } from '../../../src/suite/agentv5/nunjucks-render.js';

// Nunjucks is loaded on demand (the suite loaders do it through withNunjucks); these tests call the loader directly.
beforeAll(() => loadNunjucks());

/** promptfoo's format: every key checked, and the cases promptfoo would count. */
function load(yaml: string, name = 'promptfooconfig.yaml') {
  const root = tmpDir('re-pf-format-');
  writeFileSync(path.join(root, name), yaml);
  const r = loadSuiteFile(path.join(root, name), new Workspace(root));
  const shown = (severity: string) =>
    r.diagnostics
      .filter((d) => d.severity === severity)
      .map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`);
  return { r, errors: shown('error'), warnings: shown('warning'), cases: r.suite?.cases ?? [] };
}

describe('every key is checked', () => {
  test('a misspelt key under defaultTest, in a test and in an assertion is refused at file:line with did-you-mean', () => {
    const x = load(`prompts: ["{{ q }}"]
providers: [echo]
defaultTest:
  treshold: 0.5
tests:
  - vars: { q: hi }
    asert:
      - type: contains
        value: hi
  - vars: { q: hi }
    assert:
      - { type: contains, value: hi, tresh: 0.5 }
`);
    expect(x.errors).toEqual([
      "4:3 unknown-key unknown defaultTest key 'treshold': did you mean 'threshold'?",
      "7:5 unknown-key unknown test key 'asert': did you mean 'assert'?",
      "12:38 unknown-key unknown assertion key 'tresh': did you mean 'threshold'?",
    ]);
  });

  test('an unknown suite key and an unknown options key are refused too, in AgentV 5 suites as well', () => {
    const x = load(`default_test: {}
descripton: typo
tests:
  - id: a
    vars: { input: hi }
    options: { disableDefaultAssert: true }
    assert: [{ type: contains, value: hi }]
`);
    expect(x.errors).toEqual([
      "2:1 unknown-key unknown suite key 'descripton': did you mean 'description'?",
      "6:16 unknown-key unknown options key 'disableDefaultAssert': did you mean 'disableDefaultAsserts'?",
    ]);
  });

  test("promptfoo's keys that change no grade are known: ignored, with a warning where one could expect an effect", () => {
    const x = load(`description: d
tags: { team: support }
sharing: false
outputPath: out.json
metadata: { owner: me }
writeLatestResults: true
env: { OPENAI_BASE_URL: http://x }
evaluateOptions: { maxConcurrency: 2 }
prompts: ["{{ q }}"]
providers: [echo]
tests:
  - description: t
    metadata: { k: v }
    vars: { q: hi }
    assert: [{ type: contains, value: hi, metric: m }]
`);
    expect(x.errors).toEqual([]);
    expect(x.warnings).toEqual([
      '7:1 ignored-key `env` is ignored: provider environment values are not read from the suite; set them in the workflow',
      '8:1 ignored-key `evaluateOptions` is ignored: evaluation options (repeat, delay, cache, concurrency) come from the action’s inputs',
    ]);
  });
});

describe('a case is one (prompt, provider, test), as promptfoo counts them', () => {
  const MATRIX = `prompts:
  - { id: short, raw: "Briefly: {{ q }}" }
  - { id: long, raw: "In detail: {{ q }}" }
providers:
  - echo
  - { id: openai:gpt-4.1-mini, label: mini }
tests:
  - description: Capital of France
    vars: { q: France? }
    assert: [{ type: icontains, value: paris }]
  - vars: { q: Spain? }
    assert: [{ type: icontains, value: madrid }]
`;

  test('2 prompts × 2 providers × 2 tests are 8 cases, ids stable and readable, the description as label', () => {
    const x = load(MATRIX);
    expect(x.errors).toEqual([]);
    expect(x.cases.map((c) => [c.id, c.label ?? null, c.target])).toEqual([
      ['test-1__prompt_short__provider_echo', 'Capital of France [short · echo]', 'echo'],
      ['test-1__prompt_short__provider_mini', 'Capital of France [short · mini]', 'mini'],
      ['test-1__prompt_long__provider_echo', 'Capital of France [long · echo]', 'echo'],
      ['test-1__prompt_long__provider_mini', 'Capital of France [long · mini]', 'mini'],
      ['test-2__prompt_short__provider_echo', null, 'echo'],
      ['test-2__prompt_short__provider_mini', null, 'mini'],
      ['test-2__prompt_long__provider_echo', null, 'echo'],
      ['test-2__prompt_long__provider_mini', null, 'mini'],
    ]);
    expect(x.warnings).toEqual([]);
  });

  test("a test's `prompts` and `providers` keep some of the suite's (a trailing * matches a prefix)", () => {
    const x = load(
      MATRIX.replace(
        '  - vars: { q: Spain? }\n',
        '  - vars: { q: Spain? }\n    prompts: [long]\n    providers: ["openai:*"]\n',
      ),
    );
    expect(x.errors).toEqual([]);
    expect(x.cases.filter((c) => c.id.startsWith('test-2')).map((c) => c.id)).toEqual([
      'test-2__prompt_long__provider_mini',
    ]);
  });

  test('a filter that matches nothing is an error at the filter, naming what there is', () => {
    const x = load(
      MATRIX.replace('  - vars: { q: Spain? }\n', '  - vars: { q: Spain? }\n    providers: [gpt-5]\n'),
    );
    expect(x.errors).toEqual([
      "12:17 unknown-filter 'gpt-5' matches none of the suite's providers (echo, mini)",
    ]);
  });

  test('one prompt and one provider keep the bare test id; the description labels it', () => {
    const x = load(`prompts: ["{{ q }}"]
providers: [echo]
tests:
  - description: Says hello
    vars: { q: hi }
    assert: [{ type: equals, value: hi }]
`);
    expect(x.cases.map((c) => [c.id, c.label, c.target])).toEqual([['test-1', 'Says hello', null]]);
    expect(x.r.suite!.target).toBe('echo');
  });
});

describe("which tool's rules a suite follows", () => {
  test('promptfoo spellings give promptfoo scoring; AgentV spellings AgentV 5 scoring', () => {
    const pf = load(
      'prompts: ["{{ q }}"]\ntests:\n  - vars: { q: hi }\n    threshold: 0.5\n    assert: [{ type: contains, value: hi }]\n',
    );
    expect(pf.cases[0]!.scoring).toEqual({ kind: 'promptfoo', threshold: 0.5 });
    const av = load(
      'default_test: {}\nprompts: ["{{ q }}"]\ntests:\n  - vars: { q: hi }\n    run: { threshold: 0.4 }\n    assert: [{ type: contains, value: hi }]\n',
      'suite.yaml',
    );
    // AgentV 5's per-test run override is read (it was silently ignored).
    expect(av.cases[0]!.scoring).toEqual({ kind: 'threshold', threshold: 0.4 });
  });

  test('equals in a promptfoo config keeps the answer as it is; a number or object value is a value', () => {
    const x = load(`prompts: ["{{ q }}"]
tests:
  - vars: { q: hi }
    assert:
      - { type: equals, value: Paris }
      - { type: equals, value: 42 }
      - { type: equals, value: { city: Paris } }
      - type: is-json
        value: |
          type: object
          required: [city]
`);
    expect(x.errors).toEqual([]);
    expect(x.cases[0]!.evaluators).toMatchObject([
      { check: 'equals', values: ['Paris'], exact: true },
      { check: 'equals', expected: 42 },
      { check: 'equals', expected: { city: 'Paris' } },
      { check: 'is-json', schema: { type: 'object', required: ['city'] } },
    ]);
  });

  test('two assertions sharing a metric name are both kept (promptfoo groups them), not refused', () => {
    const x = load(`prompts: ["{{ q }}"]
tests:
  - vars: { q: hi }
    assert:
      - { type: contains, value: a, metric: accuracy }
      - { type: contains, value: b, metric: accuracy }
`);
    expect(x.errors).toEqual([]);
    expect(x.cases[0]!.evaluators.map((e) => e.name)).toEqual(['accuracy', 'accuracy (2)']);
  });
});

test("a pull request's Nunjucks template is not rendered where templates are data (the judge stage's head cases)", () => {
  const root = tmpDir('re-pf-format-data-');
  writeFileSync(
    path.join(root, 'promptfooconfig.yaml'),
    'prompts: ["{% for k, v in xs %}{{ k }}{% endfor %}", "Plain {{ q }}"]\ntests:\n  - vars: { q: hi, xs: { a: 1, b: 2 } }\n    assert: [{ type: contains, value: a }]\n',
  );
  const asData = loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root, true));
  expect(asData.diagnostics.map((d) => `${d.line} ${d.rule} ${d.message}`)).toEqual([
    "3 template the prompt 'prompt-1' does not render: it is a Nunjucks template, the pull request's code: the judge stage does not render it with the workflow's credentials",
  ]);
  const rendered = loadSuiteFile(path.join(root, 'promptfooconfig.yaml'), new Workspace(root));
  expect(rendered.suite!.cases.map((c) => (c.inputMessages[0]!.parts[0] as { text: string }).text)).toEqual([
    'ab',
    'Plain hi',
  ]);
});

test('`file://` vars are the file as promptfoo reads it: text trimmed, YAML as JSON; a script is refused by name', () => {
  const root = tmpDir('re-pf-format-vars-');
  writeFileSync(path.join(root, 'context.txt'), 'Paris is the capital.\n');
  writeFileSync(path.join(root, 'facts.yaml'), 'city: Paris\n');
  writeFileSync(path.join(root, 'make.py'), 'print(1)\n');
  const file = path.join(root, 'promptfooconfig.yaml');
  writeFileSync(
    file,
    'prompts: ["{{ context }} / {{ facts }}"]\ntests:\n  - vars: { context: file://context.txt, facts: file://facts.yaml }\n    assert: [{ type: contains, value: "{{ context }}" }]\n',
  );
  const r = loadSuiteFile(file, new Workspace(root));
  expect(r.diagnostics).toEqual([]);
  const c = r.suite!.cases[0]!;
  expect(c.inputMessages[0]!.parts).toEqual([
    { type: 'text', text: 'Paris is the capital. / {"city":"Paris"}' },
  ]);
  expect(c.evaluators[0]).toMatchObject({ values: ['Paris is the capital.'] });
  writeFileSync(file, 'prompts: ["{{ x }}"]\ntests:\n  - vars: { x: file://make.py }\n');
  const refused = loadSuiteFile(file, new Workspace(root)).diagnostics.filter((d) => d.severity === 'error');
  expect(refused.map((d) => `${d.line} ${d.rule} ${d.message}`)).toEqual([
    "3 unsupported-var-file var 'x': 'file://make.py' is a script that produces the value; rubric-eval reads files as data only",
  ]);
});
