/**
 * Reading the JSON object out of a judge's reply, strictly. The judge quotes the text it grades,
 * and that text is written by whoever wants the verdict: a reply is read as exactly one object,
 * never by picking among several, and never by letting a repeated key decide.
 */

export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/** Keys only a verdict has: an object holding one of them is a verdict, whoever wrote it. */
const VERDICT_KEYS = ['score', 'checks', 'verdict'];
/** Replies past this size are not scanned for embedded objects (a valid verdict is far smaller). */
const MAX_SCAN_CHARS = 256 * 1024;
/** Unbalanced braces in prose restart the scan; bounded so a hostile reply costs linear time. */
const MAX_RESTARTS = 200;

/**
 * The JSON object in a reply: the whole text when it is one (structured outputs, json_object),
 * else the one verdict-shaped object found in it (text mode: prose, code fences). Invalid: an
 * empty reply, no object, more than one verdict-shaped object, a key given twice in one object.
 */
export function parseJsonAnswer(content: string): ParsedAnswer {
  const text = content.trim();
  if (text === '') return { ok: false, error: 'the answer was empty' };
  const whole = tryParse(text);
  if (whole.ok) return whole.isObject ? checked(text, whole.value) : notObject;
  const blocks = objectsIn(text.slice(0, MAX_SCAN_CHARS));
  if (blocks.length === 0) return { ok: false, error: `the answer is not valid JSON (${whole.error})` };
  const verdicts = blocks.filter((b) => VERDICT_KEYS.some((k) => Object.hasOwn(b.value as object, k)));
  if (verdicts.length > 1)
    return {
      ok: false,
      error: `the answer holds ${verdicts.length} verdict-shaped JSON objects (a quoted one among them?); reply with exactly one JSON object, your own verdict`,
    };
  const chosen = verdicts[0] ?? blocks[0]!;
  return checked(chosen.text, chosen.value);
}

const notObject: ParsedAnswer = { ok: false, error: 'the answer is JSON but not an object' };

function checked(text: string, value: unknown): ParsedAnswer {
  const dup = repeatedKey(text);
  if (dup !== null)
    return { ok: false, error: `key "${dup}" appears twice in one object; give each key once` };
  return { ok: true, value };
}

function tryParse(
  text: string,
): { ok: true; value: unknown; isObject: boolean } | { ok: false; error: string } {
  try {
    const value: unknown = JSON.parse(text);
    return {
      ok: true,
      value,
      isObject: typeof value === 'object' && value !== null && !Array.isArray(value),
    };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Top-level `{…}` spans of `text` that parse as JSON objects, in order; one linear pass per restart. */
function objectsIn(text: string): { text: string; value: unknown }[] {
  const found: { text: string; value: unknown }[] = [];
  let from = 0;
  for (let restarts = 0; restarts <= MAX_RESTARTS;) {
    const start = text.indexOf('{', from);
    if (start < 0) break;
    const end = balancedEnd(text, start);
    const parsed = end < 0 ? null : tryParse(text.slice(start, end + 1));
    if (parsed?.ok && parsed.isObject) {
      found.push({ text: text.slice(start, end + 1), value: parsed.value });
      from = end + 1;
    } else {
      restarts++;
      from = start + 1;
    }
  }
  return found;
}

/** Index of the `}` closing the `{` at `start` (strings respected), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') i = stringEnd(text, i);
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return ch === '}' ? i : -1;
    }
  }
  return -1;
}

/** Index of the quote closing the string opened at `i` (or the end of the text). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j;
}

/**
 * The first key that appears twice in one object of a valid JSON text, or null. Iterative (a
 * stack of key lists), so nesting depth costs memory, not the call stack; keys are compared
 * decoded (`"sc\u006fre"` is `"score"`). A judge's answer has a few keys per object: a short
 * list searched in place costs less than a Set, and a key without escapes is its own decoding.
 */
export function repeatedKey(json: string): string | null {
  const stack: (string[] | Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json.charCodeAt(i);
    if (ch === QUOTE) {
      const end = stringEnd(json, i);
      const keys = stack[stack.length - 1];
      if (keys && expectKey) {
        const raw = json.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (Array.isArray(keys)) {
          if (keys.includes(name)) return name;
          keys.push(name);
          // A hostile reply may hold an object of a million keys: searching a list would be quadratic.
          if (keys.length > SMALL_OBJECT) stack[stack.length - 1] = new Set(keys);
        } else {
          if (keys.has(name)) return name;
          keys.add(name);
        }
        expectKey = false;
      }
      i = end;
    } else if (ch === OPEN_BRACE) {
      stack.push([]);
      expectKey = true;
    } else if (ch === OPEN_BRACKET) stack.push(null);
    else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) stack.pop();
    else if (ch === COMMA) expectKey = stack[stack.length - 1] != null;
  }
  return null;
}

/** Keys an object may have before they are kept in a Set rather than a list. */
const SMALL_OBJECT = 16;
const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
