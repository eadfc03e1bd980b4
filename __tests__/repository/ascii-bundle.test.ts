import { readFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error: a plain ESM script without types, used by scripts/package.mjs
import { asciiOnly as untyped } from '../../scripts/ascii-only.mjs';
import { REPO_ROOT } from '../helpers/paths.js';

// scripts/ascii-only.mjs writes the bundles: the escapes it makes must mean what the text meant.
const asciiOnly = untyped as (code: string) => string;

/** Runs a module's source and returns its default export. */
async function evaluate(code: string): Promise<unknown> {
  const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
  return ((await import(url)) as { default: unknown }).default;
}

test('strings, templates, regular expressions and comments keep their meaning in ASCII', async () => {
  const source = [
    '// a comment — with “quotes”',
    "const s = 'score — 0.9 ✓ 日本語 🎉';",
    'const t = `line › ${s.length} …`;',
    'const u = /[àé]+|🎉/u.test("éà🎉") && /🎉/u.exec("x🎉")[0] === "🎉" && /[🎉]/u.test("🎉");',
    'const v = /…/.test("a…b");',
    'export default { s, t, u, v };',
  ].join('\n');
  const escaped = asciiOnly(source);
  expect(/[\u0080-\uffff]/.test(escaped)).toBe(false);
  expect(await evaluate(escaped)).toEqual(await evaluate(source));
});

test('where an escape could mean something else, the character is refused, not rewritten', () => {
  expect(() => asciiOnly('const café = 1;')).toThrow(/outside a string, regexp or comment/);
  expect(() => asciiOnly('const r = String.raw`—`;')).toThrow(/tagged template/);
  expect(() => asciiOnly("const s = '\\é';")).toThrow(/after a backslash/);
  expect(asciiOnly("const s = '\\\\é';")).toBe("const s = '\\\\\\u00e9';");
  expect(() => asciiOnly('const f = () => { return /*\u2028*/ 1; };')).toThrow(/separator/);
});

test('the committed bundles are ASCII', () => {
  for (const file of ['dist/index.js', 'dist/cli.js'])
    expect(/[\u0080-\uffff]/.test(readFileSync(path.join(REPO_ROOT, file), 'utf8'))).toBe(false);
});
