/** How far below a case's first line its `id:` key is looked for. */
const MAX_SCAN = 400;

const ID_KEY = /^["']?id["']?\s*:/;

/**
 * The line of a YAML case's `id:` key, from the line where its loader found the case (the start
 * of its mapping, which is the `id:` line only when `id` is the first key). The scan stays inside
 * that mapping: it stops at the first line indented less than its keys. Anything else (a flow
 * mapping, no `id` key) keeps the loader's line.
 */
export function idKeyLine(text: string, line: number): number {
  const lines = text.split('\n', line + MAX_SCAN);
  const first = lines[line - 1];
  if (first === undefined) return line;
  const dash = /^(\s*)-(\s+|$)/.exec(first);
  let indent: number | null = dash ? (first.trim() === '-' ? null : dash[0].length) : leading(first);
  if (indent !== null && ID_KEY.test(first.slice(indent))) return line;
  for (let i = line; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '' || l.trimStart().startsWith('#')) continue;
    const at = leading(l);
    indent ??= at;
    if (at < indent) break;
    if (at === indent && ID_KEY.test(l.slice(at))) return i + 1;
  }
  return line;
}

const leading = (l: string) => l.length - l.trimStart().length;
