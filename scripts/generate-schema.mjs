// Writes schema/eval-suite.schema.json from the zod schema that validates suites at load time,
// so editors (yaml-language-server) and the loader agree. CI regenerates it and fails on a diff.
import { mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const source = readFileSync(path.join(root, 'src/suite/schema.ts'), 'utf8');
const { outputText } = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
});
// Inside the repo, so `zod` resolves from node_modules.
const tmp = path.join(root, 'node_modules/.cache/rubric-eval-schema.mjs');
mkdirSync(path.dirname(tmp), { recursive: true });
writeFileSync(tmp, outputText);
const { EvalSuiteSchema } = await import(pathToFileURL(tmp).href);
const { z } = await import('zod');
rmSync(tmp);

const schema = z.toJSONSchema(EvalSuiteSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
schema.$id = 'https://github.com/rubric-eval/rubric-eval/blob/main/schema/eval-suite.schema.json';
mkdirSync(path.join(root, 'schema'), { recursive: true });
writeFileSync(path.join(root, 'schema/eval-suite.schema.json'), JSON.stringify(schema, null, 2) + '\n');
console.log('schema/eval-suite.schema.json');
