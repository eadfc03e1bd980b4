// Used by scripts/package.mjs. V8 keeps a script's source in memory for as long as the process
// runs, as one byte per character when every character is ASCII and two otherwise: a few
// typographic characters in the bundled messages would double the memory the bundle takes
// (2.6 MB more for dist/cli.js, 3.9 MB for dist/index.js) and the work of reading it.
import * as acorn from 'acorn';

/**
 * The same program with every non-ASCII character escaped (`\uXXXX`, one per UTF-16 unit) where
 * an escape means the same thing: string literals, template text, regular expressions (a pair of
 * surrogate escapes is one code point in a `u` or `v` expression) and comments. Throws, rather
 * than guess, where an escape could mean something else: an identifier, a tagged template (its
 * tag may read the raw text), a character after a backslash, a line or paragraph separator.
 */
export function asciiOnly(code) {
  const escapable = [];
  const tagged = [];
  const tokens = [];
  const ast = acorn.parse(code, {
    ecmaVersion: 'latest',
    sourceType: 'module',
    allowHashBang: true,
    onToken: tokens,
    onComment: (_block, _text, start, end) => escapable.push([start, end]),
  });
  const { string, template, regexp } = acorn.tokTypes;
  for (const t of tokens)
    if (t.type === string || t.type === template || t.type === regexp) escapable.push([t.start, t.end]);
  escapable.sort((a, b) => a[0] - b[0]);
  walk(ast, (node) => {
    if (node.type === 'TaggedTemplateExpression') tagged.push([node.quasi.start, node.quasi.end]);
  });
  let out = '';
  let last = 0;
  let r = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c < 128) continue;
    while (r < escapable.length && escapable[r][1] <= i) r++;
    const where = JSON.stringify(code.slice(Math.max(0, i - 40), i + 10));
    if (r >= escapable.length || escapable[r][0] > i)
      throw new Error(
        `non-ASCII character U+${c.toString(16)} outside a string, regexp or comment: ${where}`,
      );
    if (tagged.some(([s, e]) => s <= i && i < e))
      throw new Error(`non-ASCII character U+${c.toString(16)} in a tagged template: ${where}`);
    // `\é` is é, but `\\u00e9` would be a backslash and text; a line or paragraph separator is a
    // line break to the grammar (in a comment it ends a statement), which its escape is not.
    let backslashes = 0;
    while (code.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 1)
      throw new Error(`non-ASCII character U+${c.toString(16)} after a backslash: ${where}`);
    if (c === 0x2028 || c === 0x2029)
      throw new Error(`line or paragraph separator U+${c.toString(16)} in the code: ${where}`);
    out += `${code.slice(last, i)}\\u${c.toString(16).padStart(4, '0')}`;
    last = i + 1;
  }
  return out + code.slice(last);
}

function walk(node, visit) {
  visit(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const v of value) if (v && typeof v.type === 'string') walk(v, visit);
    } else if (value && typeof value.type === 'string') walk(value, visit);
  }
}
