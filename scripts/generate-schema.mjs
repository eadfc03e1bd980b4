// Writes schema/eval-suite.schema.json from the zod schema that validates suites at load time,
// so editors (yaml-language-server) and the loader agree. CI regenerates it and fails on a diff.
import { mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// Inside the repo, so `zod` resolves from node_modules. A schema module and the project modules it
// imports (relative `.js` imports of `.ts` files) are transpiled into a mirror of src/, then loaded.
const mirror = path.join(root, 'node_modules/.cache/rubric-eval-schema');
const transpile = (file, seen = new Set()) => {
  if (seen.has(file)) return;
  seen.add(file);
  const source = readFileSync(path.join(root, 'src', file), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const out = path.join(mirror, file.replace(/\.ts$/, '.js'));
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, outputText);
  for (const [, rel] of source.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g))
    transpile(path.join(path.dirname(file), `${rel}.ts`), seen);
};
const load = async (file) => {
  rmSync(mirror, { recursive: true, force: true });
  transpile(path.join('suite', file));
  try {
    return await import(pathToFileURL(path.join(mirror, 'suite', file.replace(/\.ts$/, '.js'))).href);
  } finally {
    rmSync(mirror, { recursive: true, force: true });
  }
};
const { EvalSuiteSchema } = await load('v2/schema.ts');
const { TestsSuiteSchema } = await load('agentv5/tests-schema.ts');
const { z } = await import('zod');

// Two accepted shapes: AgentV v2 (`evalcases`) and AgentV 5 / promptfoo (`tests`, `vars`, `assert`).
const SuiteFileSchema = z.union([EvalSuiteSchema, TestsSuiteSchema]).meta({
  title: 'rubric-eval eval suite',
  description: 'An AgentV v2 suite, or an AgentV 5 / promptfoo suite.',
});
const schema = z.toJSONSchema(SuiteFileSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
// The loader reads `tests` or promptfoo's `scenarios` (either may bring the tests), so neither is
// required by the zod schema; a file with neither is no AgentV 5 suite, and editors should say so.
schema.anyOf[1].anyOf = [{ required: ['tests'] }, { required: ['scenarios'] }];
schema.$id = 'https://github.com/rubric-eval/rubric-eval/blob/main/schema/eval-suite.schema.json';
mkdirSync(path.join(root, 'schema'), { recursive: true });
writeFileSync(path.join(root, 'schema/eval-suite.schema.json'), JSON.stringify(schema, null, 2) + '\n');
console.log('schema/eval-suite.schema.json');
