import { isSeq, stringify, type YAMLMap } from 'yaml';

type Ranged = { range?: [number, number, number] | null };

/** The start of the line after the last non-blank character before `end`. */
function lineAfter(text: string, end: number): { offset: number; prefix: string } {
  let e = end;
  while (e > 0 && /\s/.test(text[e - 1]!)) e--;
  const nl = text.indexOf('\n', e);
  return nl === -1 ? { offset: text.length, prefix: '\n' } : { offset: nl + 1, prefix: '' };
}

function indentOf(text: string, at: number): number {
  return at - (text.lastIndexOf('\n', at - 1) + 1);
}

/**
 * Plain-string criteria for an AgentV 5 / promptfoo test, inserted without changing any existing
 * line: appended to its block `assert` list, or as a new `assert:` after the test's last value.
 * A flow-style `assert: [...]` is left alone (null): rewriting it would reformat the user's line.
 */
export function criteriaInsertion(
  item: YAMLMap,
  text: string,
  criteria: string[],
): { offset: number; text: string } | null {
  const pair = item.items.find((p) => (p.key as { value?: unknown } | null)?.value === 'assert');
  const lines = (indent: number, body: unknown) =>
    stringify(body, { indent: 2, lineWidth: 0 })
      .trimEnd()
      .split('\n')
      .map((l) => ' '.repeat(indent) + l)
      .join('\n');
  if (pair) {
    const seq = pair.value;
    if (!isSeq(seq) || seq.flow || seq.items.length === 0) return null;
    const first = seq.items[0] as Ranged;
    // Block items start after `- `: the dash sits two columns before the item's content.
    const dash = text.lastIndexOf('-', first.range?.[0] ?? 0);
    const { offset, prefix } = lineAfter(text, (seq as Ranged).range?.[1] ?? text.length);
    return { offset, text: `${prefix}${lines(indentOf(text, dash), criteria)}\n` };
  }
  const firstKey = item.items[0]?.key as Ranged | undefined;
  const indent = indentOf(text, firstKey?.range?.[0] ?? 0);
  const last = item.items[item.items.length - 1]!;
  const { offset, prefix } = lineAfter(text, ((last.value ?? last.key) as Ranged).range?.[1] ?? text.length);
  return { offset, text: `${prefix}${lines(indent, { assert: criteria })}\n` };
}
