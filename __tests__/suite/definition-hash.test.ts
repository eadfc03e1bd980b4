import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson, definitionHash } from '../../src/suite/definition-hash.js';
import { findSuiteFiles, loadSuites } from '../../src/suite/discover.js';
import { Workspace } from '../../src/core/workspace.js';
import { tmpDir } from '../helpers/judge.js';
import { agentvCorpusCopy } from '../helpers/corpus-copy.js';
import { corpusTest } from '../helpers/paths.js';

/** The canonical text by its definition, written the plain way: keys sorted at every depth. */
function referenceCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${Array.from(value, (v: unknown) => (v === undefined ? 'null' : referenceCanonical(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((k) => record[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${referenceCanonical(record[k])}`);
  return `{${members.join(',')}}`;
}

const SUITE = `evalcases:
  - id: judged
    expected_outcome: Names Paris
    input: What is the capital of France?
    expected_output: Paris.
    rubrics:
      - id: names-paris
        expected_outcome: Says Paris
        required: true
      - Is one sentence
  - id: prompted
    expected_outcome: Explains
    input: Explain quicksort.
    execution:
      evaluators:
        - name: custom
          type: llm_judge
          prompt: ./prompts/judge.md
        - name: keywords
          type: code_judge
          script: node check.js
`;

function repo(files: Record<string, string> = {}): string {
  const root = tmpDir('re-defhash-');
  mkdirSync(path.join(root, 'evals/prompts'), { recursive: true });
  const all = {
    'evals/s.yaml': SUITE,
    'evals/prompts/judge.md': 'Grade {{candidate_answer}}.',
    'evals/check.js': 'console.log(JSON.stringify({ score: 1 }));\n',
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) writeFileSync(path.join(root, rel), text);
  return root;
}

/** Loads the suites under `root` as a run does and hashes each case: `suite#id` → hash. */
async function hashes(
  root: string,
  pattern = 'evals/*.yaml',
  target = 'default',
): Promise<Record<string, string>> {
  const ws = new Workspace(root);
  const found = await findSuiteFiles([pattern], root);
  const { suites, diagnostics } = await loadSuites(found.files, ws);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return Object.fromEntries(
    suites.flatMap((s) => s.cases.map((c) => [`${s.path}#${c.id}`, definitionHash(c, target, ws.root)])),
  );
}

describe('definition_hash', () => {
  test('canonical JSON sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: 'é' }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":"é","z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  test('canonical JSON is the sorted-key text for values JSON.stringify writes differently', () => {
    const strange: unknown[] = [
      { '10': 'ten', '9': 'nine', b: 1, a: 0 },
      JSON.parse('{"z": 1, "__proto__": {"b": 1, "a": 2}}'),
      { when: new Date(0), boxed: new String('ab'), n: new Number(3) },
      { f: () => 1, s: Symbol('s'), keep: 'yes' },
      { toJSON: () => 'replaced', b: 1 },
      // eslint-disable-next-line no-sparse-arrays -- a hole is written as null, like undefined
      [undefined, () => 1, , -0, NaN, Infinity],
      { é: 1, z: 2, Z: 3, a: 4, '\u{1F600}': 5, '\uFFFF': 6, '': 7 },
      Object.assign(Object.create(null) as object, { b: 2, a: 1 }),
      { deep: [{ d: 1, c: [{ y: 2, x: 1 }] }], sorted: { a: 1, b: 2 } },
    ];
    for (const value of strange) expect(canonicalJson(value)).toBe(referenceCanonical(value));
  });

  test('canonical JSON visits each member once, however deep the objects to reorder are', () => {
    let value: unknown = { b: 1, a: NaN };
    for (let i = 0; i < 200; i++) value = { z: [value], y: i };
    // Were members visited again when copied, this would take about 2^200 steps.
    expect(canonicalJson(value)).toBe(referenceCanonical(value));
    const withToJson = Object.assign([1, 2], { toJSON: () => 'replaced' });
    expect(canonicalJson({ list: withToJson })).toBe('{"list":[1,2]}');
  });

  corpusTest('canonical JSON of every corpus case is the sorted-key text', async () => {
    const root = agentvCorpusCopy('re-defhash-ref-');
    const found = await findSuiteFiles(['*/evals/*.yaml'], root);
    const { suites } = await loadSuites(found.files, new Workspace(root));
    const cases = suites.flatMap((s) => s.cases);
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) expect(canonicalJson(c)).toBe(referenceCanonical(c));
  });

  test('the same suite gives the same hashes across loads and working directories', async () => {
    const first = await hashes(repo());
    expect(Object.values(first)).toHaveLength(2);
    for (const h of Object.values(first)) expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(await hashes(repo())).toEqual(first);
    // A checkout in a deeper directory, run from there.
    const nested = path.join(tmpDir('re-defhash-nest-'), 'a/b/checkout');
    cpSync(repo(), nested, { recursive: true });
    expect(await hashes(nested)).toEqual(first);
  });

  test('a changed rubric, expected outcome, input, target or prompt text changes it; a renamed prompt file does not', async () => {
    const base = await hashes(repo());
    const changed = async (files: Record<string, string>, target?: string) =>
      hashes(repo(files), undefined, target);
    const rubric = await changed({ 'evals/s.yaml': SUITE.replace('required: true', 'required: false') });
    expect(rubric['evals/s.yaml#judged']).not.toBe(base['evals/s.yaml#judged']);
    expect(rubric['evals/s.yaml#prompted']).toBe(base['evals/s.yaml#prompted']);
    const outcome = await changed({ 'evals/s.yaml': SUITE.replace('Names Paris', 'Names Paris.') });
    expect(outcome['evals/s.yaml#judged']).not.toBe(base['evals/s.yaml#judged']);
    const input = await changed({ 'evals/s.yaml': SUITE.replace('of France?', 'of France') });
    expect(input['evals/s.yaml#judged']).not.toBe(base['evals/s.yaml#judged']);
    const target = await changed({}, 'other');
    expect(target['evals/s.yaml#judged']).not.toBe(base['evals/s.yaml#judged']);
    const promptText = await changed({ 'evals/prompts/judge.md': 'Grade {{candidate_answer}} strictly.' });
    expect(promptText['evals/s.yaml#prompted']).not.toBe(base['evals/s.yaml#prompted']);
    expect(promptText['evals/s.yaml#judged']).toBe(base['evals/s.yaml#judged']);
    const moved = await changed({
      'evals/s.yaml': SUITE.replace('./prompts/judge.md', './prompts/renamed.md'),
      'evals/prompts/renamed.md': readFileSync(path.join(repo(), 'evals/prompts/judge.md'), 'utf8'),
    });
    expect(moved).toEqual(base);
  });

  test('a code judge’s or prompt script’s content changes it, as does the target’s definition; its name alone is not all', async () => {
    const promptScript = `  - id: scripted
    input: Explain
    execution:
      evaluators:
        - name: p
          type: llm_judge
          prompt: { script: [node, ../judge.mjs] }
`;
    const files = (over: Record<string, string> = {}) =>
      repo({ 'evals/s.yaml': SUITE + promptScript, 'judge.mjs': 'print()', ...over });
    const base = await hashes(files());
    const rewritten = await hashes(
      files({ 'evals/check.js': 'console.log(JSON.stringify({ score: 1 })) // always\n' }),
    );
    expect(rewritten['evals/s.yaml#prompted']).not.toBe(base['evals/s.yaml#prompted']);
    expect(rewritten['evals/s.yaml#judged']).toBe(base['evals/s.yaml#judged']);
    const prompt = await hashes(files({ 'judge.mjs': 'print("be lenient")' }));
    expect(prompt['evals/s.yaml#scripted']).not.toBe(base['evals/s.yaml#scripted']);
    expect(prompt['evals/s.yaml#prompted']).toBe(base['evals/s.yaml#prompted']);

    // The target: the same name, another definition.
    const ws = new Workspace(files());
    const { suites } = await loadSuites((await findSuiteFiles(['evals/*.yaml'], ws.root)).files, ws);
    const c = suites[0]!.cases[0]!;
    const mock = (response: string) => ({ name: 'default', definition: { provider: 'mock', response } });
    expect(definitionHash(c, mock('a'), ws.root)).not.toBe(definitionHash(c, mock('b'), ws.root));
    expect(definitionHash(c, mock('a'), ws.root)).toBe(definitionHash(c, mock('a'), ws.root));
    expect(definitionHash(c, mock('a'), ws.root)).not.toBe(definitionHash(c, 'default', ws.root));
  });

  test("a deterministic evaluator's config, a prompt script's config and reference_answer change it", async () => {
    const extra = `  - id: fields
    input: Extract
    reference_answer: INV-1
    execution:
      evaluators:
        - name: f
          type: field_accuracy
          fields: [{ path: id, match: exact }]
        - name: p
          type: llm_judge
          prompt: { script: [node, ../judge.mjs], config: { strict: true } }
`;
    const files = (suite: string) => ({ 'evals/s.yaml': SUITE + suite, 'judge.mjs': '' });
    const key = 'evals/s.yaml#fields';
    const base = (await hashes(repo(files(extra))))[key];
    for (const changed of [
      extra.replace('match: exact', 'match: date'),
      extra.replace('strict: true', 'strict: false'),
      extra.replace('reference_answer: INV-1', 'reference_answer: INV-2'),
    ])
      expect((await hashes(repo(files(changed))))[key]).not.toBe(base);
  });

  test("a case's cluster changes it (the effect resamples by cluster); a case without one keeps its hash", async () => {
    const key = 'evals/s.yaml#judged';
    const plain = await hashes(repo());
    const inCluster = (name: string) =>
      hashes(
        repo({ 'evals/s.yaml': SUITE.replace('  - id: judged\n', `  - id: judged\n    cluster: ${name}\n`) }),
      );
    const refunds = (await inCluster('refunds'))[key];
    expect(refunds).not.toBe(plain[key]);
    expect((await inCluster('billing'))[key]).not.toBe(refunds);
    expect((await inCluster('refunds'))[key]).toBe(refunds);
    // The untouched case's hash, without a cluster, is as before.
    expect((await inCluster('refunds'))['evals/s.yaml#prompted']).toBe(plain['evals/s.yaml#prompted']);
  });

  test('structured expected content and tool calls count; an alias shadowed by its canonical key does not', async () => {
    const suite = (expected: string) => `evalcases:
  - id: shaped
    expected_outcome: Extracts
    input_messages: [{ role: user, content: Extract }]
${expected}
    execution:
      evaluators:
        - { name: check, type: code_judge, script: node check.js }
`;
    const key = 'evals/s.yaml#shaped';
    const hashOf = async (expected: string) => (await hashes(repo({ 'evals/s.yaml': suite(expected) })))[key];
    // The same JSON text, once as an object and once as a string: a code judge sees different values.
    const object = await hashOf('    expected_output: { total: 1 }');
    const text = await hashOf('    expected_output: "{\\n  \\"total\\": 1\\n}"');
    expect(object).not.toBe(text);
    const tools = await hashOf('    expected_messages: [{ role: assistant, tool_calls: [{ tool: Read }] }]');
    const otherTools = await hashOf(
      '    expected_messages: [{ role: assistant, tool_calls: [{ tool: Edit }] }]',
    );
    expect(tools).not.toBe(otherTools);
    const shadowed = await hashOf('    expected_output: { total: 1 }\n    input: Never read');
    expect(shadowed).toBe(object);
  });

  test("the vars a model-graded check or a transform reads change it; AgentV 5's stated score counts", async () => {
    const suite = (docs: string, ctx: string, extra = '') => `description: ctx-hash
providers: [echo]
prompts: ['{{ q }}']
tests:
  - vars: { q: Paris is the capital of France., query: What is the capital?, docs: '${docs}', context: '${ctx}' }
    assert:
      - { type: context-faithfulness, contextTransform: context.vars.docs }
      - { type: context-recall, value: Paris is the capital of France. }
  - vars: { q: hi, note: '${docs}' }
    assert:
      - { type: contains, value: hi, transform: 'output + context.vars.note' }
${extra}`;
    const at = 'evals/promptfooconfig.yaml';
    const hashOf = async (docs: string, ctx: string, extra?: string) =>
      Object.values(await hashes(repo({ [at]: suite(docs, ctx, extra) }), at));
    const [graded, transformed] = await hashOf('Paris is the capital.', 'Paris is in France.');
    // The data a context-* grader is graded on (and a transform's vars) are the definition.
    const [docs, note] = await hashOf('Berlin is the capital.', 'Paris is in France.');
    expect(docs).not.toBe(graded);
    expect(note).not.toBe(transformed);
    expect((await hashOf('Paris is the capital.', 'Rome is in Italy.'))[0]).not.toBe(graded);
    // A test without either keeps the hash it had before: the vars it sends are its input.
    const plain = '  - vars: { q: hi }\n    assert: [{ type: contains, value: hi }]\n';
    const [, , a] = await hashOf('one', 'x', plain);
    const [, , b] = await hashOf('two', 'y', plain);
    expect(a).toBe(b);

    // AgentV 5 checklists decide by the judge's stated score: the same checks without it grade otherwise.
    const v5 = 'tests:\n  - id: t\n    input: hi\n    assert:\n      - Says hello\n';
    const root = repo({ 'evals/v5.eval.yaml': v5 });
    const ws = new Workspace(root);
    const { suites } = await loadSuites((await findSuiteFiles(['evals/v5.eval.yaml'], root)).files, ws);
    const c = suites[0]!.cases[0]!;
    const judge = c.evaluators[0]!;
    expect(judge.type === 'llm_judge' && judge.statedScore).toBe(true);
    const stated = definitionHash(c, 'default', ws.root);
    const unstated = { ...c, evaluators: [{ ...judge, statedScore: undefined }] };
    expect(definitionHash(unstated, 'default', ws.root)).not.toBe(stated);
  });

  test('key order and comments in the YAML do not change it', async () => {
    const reordered = SUITE.replace(
      '    expected_outcome: Names Paris\n    input: What is the capital of France?\n',
      '    # the question\n    input: What is the capital of France?\n    expected_outcome: Names Paris\n',
    );
    expect(await hashes(repo({ 'evals/s.yaml': reordered }))).toEqual(await hashes(repo()));
  });

  corpusTest('every corpus case hashes the same in two copies of the corpus', async () => {
    const copies = [agentvCorpusCopy('re-defhash-c1-'), path.join(tmpDir('re-defhash-c2-'), 'x')];
    cpSync(copies[0]!, copies[1]!, { recursive: true });
    const [a, b] = await Promise.all(copies.map((dir) => hashes(dir, '*/evals/*.yaml')));
    expect(Object.keys(a!).length).toBeGreaterThan(10);
    expect(b).toEqual(a);
    expect(new Set(Object.values(a!)).size).toBe(Object.keys(a!).length);
  });
});
