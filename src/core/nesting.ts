/**
 * How deep a parsed file may nest. Everything downstream (validation, hashing, redaction,
 * serialising results) walks values recursively; a file nested thousands of levels deep would
 * overflow the stack there. It is refused right after parsing, with its position, by walks that
 * use a heap stack, not the call stack. 100 is js-yaml's own limit; suites need a handful.
 */
export const MAX_NESTING_DEPTH = 100;

type Segment = string | number;

/** The path to the first value nested deeper than `max` levels, or null. */
export function tooDeepPath(value: unknown, max = MAX_NESTING_DEPTH): Segment[] | null {
  interface Frame {
    value: object;
    depth: number;
    key: Segment;
    parent: Frame | null;
  }
  const seen = new WeakSet<object>();
  const stack: Frame[] = [];
  if (value !== null && typeof value === 'object') stack.push({ value, depth: 0, key: '', parent: null });
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth >= max) return pathOf(frame);
    // Shared (aliased) values are walked once: depth, not the expansion, is what is measured.
    if (seen.has(frame.value)) continue;
    seen.add(frame.value);
    const entries: [Segment, unknown][] = Array.isArray(frame.value)
      ? frame.value.map((v, i) => [i, v])
      : Object.entries(frame.value);
    for (const [key, v] of entries)
      if (v !== null && typeof v === 'object')
        stack.push({ value: v, depth: frame.depth + 1, key, parent: frame });
  }
  return null;

  function pathOf(frame: Frame): Segment[] {
    const out: Segment[] = [];
    for (let f: Frame | null = frame; f?.parent; f = f.parent) out.push(f.key);
    return out.reverse();
  }
}

/**
 * Offset in a JSON text of the bracket that opens level `max + 1`, or -1. A scan, not a parse:
 * it runs before anything recursive sees the text.
 */
export function tooDeepOffset(json: string, max = MAX_NESTING_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (ch === '"') {
      for (i++; i < json.length && json[i] !== '"'; i += json[i] === '\\' ? 2 : 1);
    } else if (ch === '{' || ch === '[') {
      if (++depth > max) return i;
    } else if (ch === '}' || ch === ']') depth--;
  }
  return -1;
}
