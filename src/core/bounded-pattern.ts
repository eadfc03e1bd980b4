import { RE2JS } from 're2js';

/**
 * A regular expression from a suite (a `regex` assertion, a JSON Schema `pattern`) is PR content:
 * run by JavaScript's backtracking engine, `^(a|a)+$` against a few dozen characters holds the
 * main thread for minutes, past cancel. Every such pattern runs on RE2's automaton instead
 * (re2js, a pure JavaScript port: linear in the input, no native build, bundles as it is). What
 * RE2 cannot run in linear time (lookaround, backreferences) is refused with a message that
 * names the construct, never run some other way.
 */
export class PatternRefusedError extends Error {
  override name = 'PatternRefusedError';
}

/** What a compiled pattern offers: a linear-time search anywhere in the text. */
export interface BoundedPattern {
  test(text: string): boolean;
}

const compiled = new Map<string, BoundedPattern>();
const MAX_CACHED = 512;

/**
 * The run's total: each pattern is bounded (MAX_STATES), but 800 distinct ones just under it
 * held the main thread compiling for 20 s, past cancel. So the states of every distinct pattern
 * compiled in this process (a run is one process) are added up, refused ones included (they cost
 * the compile too), and past MAX_TOTAL_STATES a new pattern is refused before it is compiled: an
 * error where it is written, never a pass. Twenty patterns at the per-pattern limit, or thousands
 * of ordinary ones (tens of states each); about a second of compiling at most.
 */
const MAX_TOTAL_STATES = 400_000;
const charged = new Set<string>();
/** Refused after compiling: refused again without compiling (a case list may repeat one). */
const refusedAfterCompile = new Map<string, string>();
let totalStates = 0;

/**
 * Compiles a JavaScript-syntax pattern with JavaScript flags for RE2; throws PatternRefusedError
 * with a message for the user when the pattern uses what RE2 does not run. Compiled once per run.
 */
export function compileBoundedPattern(source: string, flags = ''): BoundedPattern {
  const key = `${flags}/${source}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const refused = refusedAfterCompile.get(key);
  if (refused !== undefined) throw new PatternRefusedError(refused);
  // Recompiled after the cache was cleared: already counted, and already within the total.
  if (!charged.has(key) && totalStates >= MAX_TOTAL_STATES)
    throw new PatternRefusedError(
      `/${source}/${flags} is not compiled: the patterns compiled so far total ${totalStates} automaton states, which reaches the run's limit of ${MAX_TOTAL_STATES} (use fewer or smaller patterns)`,
    );
  let pattern: BoundedPattern;
  try {
    pattern = compile(source, flags, (states) => {
      if (charged.has(key)) return;
      charged.add(key);
      totalStates += states;
    });
  } catch (err) {
    if (charged.has(key)) refusedAfterCompile.set(key, (err as Error).message);
    throw err;
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(key, pattern);
  return pattern;
}

/** The message compileBoundedPattern would throw, or null when the pattern runs. */
export function boundedPatternProblem(source: string, flags = ''): string | null {
  try {
    compileBoundedPattern(source, flags);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * ajv's `code.regExp` option: JSON Schema `pattern` and `patternProperties` through RE2. A
 * refused pattern throws while ajv compiles the schema, so the check errors before it runs.
 */
export const boundedRegExpEngine = Object.assign(
  (source: string, flags: string): BoundedPattern => compileBoundedPattern(source, flags),
  { code: 'rubric-eval bounded pattern (RE2)' },
);

function compile(source: string, flags: string, charge: (states: number) => void): BoundedPattern {
  const shown = `/${source}/${flags}`;
  const unsupported = jsOnlyConstruct(source);
  if (unsupported)
    throw new PatternRefusedError(
      `${shown} uses ${unsupported}, which the linear-time engine (RE2) does not run: rewrite the pattern without it (a second assertion with \`negate: true\` often does the job)`,
    );
  if (flags.includes('v'))
    throw new PatternRefusedError(
      `${shown}: the \`v\` flag is not supported by the linear-time engine (RE2)`,
    );
  let re2Flags = 0;
  if (flags.includes('i')) re2Flags |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) re2Flags |= RE2JS.MULTILINE;
  if (flags.includes('s')) re2Flags |= RE2JS.DOTALL;
  // A pattern RE2 rejects while parsing cost about its length.
  let states = source.length;
  try {
    const translated = RE2JS.translateRegExp(source);
    // Sticky on a fresh expression: the match must start at the beginning of the text.
    const re = RE2JS.compile(flags.includes('y') ? `\\A(?:${translated})` : translated, re2Flags);
    states = stateCount(re);
    return budgeted(re, states, shown);
  } catch (err) {
    throw new PatternRefusedError(
      `${shown} is not supported by the linear-time engine (RE2): ${(err as Error).message}`,
    );
  } finally {
    charge(states);
  }
}

/**
 * Linear in the text, but with the pattern's size as the factor: `[a-z]{1000}` ten times over
 * is 10,000 automaton states, and 10 s against a 100 KB answer. So a pattern is refused past
 * MAX_STATES, and a check whose states × characters exceed MAX_WORK (about a second) is not run:
 * the check is an error naming both sizes, never a pass.
 */
const MAX_STATES = 20_000;
const MAX_WORK = 100_000_000;

function stateCount(re: RE2JS): number {
  // re2js's compiled program (internal, version pinned); the source's length where it is absent.
  const prog = (re as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog;
  return Math.max(prog?.inst?.length ?? re.pattern().length, 1);
}

function budgeted(re: RE2JS, states: number, shown: string): BoundedPattern {
  if (states > MAX_STATES)
    throw new PatternRefusedError(
      `${shown} compiles to ${states} automaton states; the limit is ${MAX_STATES} (write a shorter pattern)`,
    );
  return {
    test: (text) => {
      if (states * text.length > MAX_WORK)
        throw new PatternRefusedError(
          `${shown} (${states} states) against ${text.length} characters exceeds the time budget of ${MAX_WORK.toExponential(0)} steps: not checked`,
        );
      return re.test(text);
    },
  };
}

/**
 * The first construct of JavaScript's syntax that needs backtracking, named for the user; null
 * when there is none. Escapes and character classes are skipped, where `(?=` and `\1` mean
 * something else or nothing.
 */
function jsOnlyConstruct(source: string): string | null {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `a backreference (\`\\${next}\`)`;
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'a named backreference (`\\k<...>`)';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c !== '(' || source[i + 1] !== '?') continue;
    const head = source.slice(i + 2, i + 4);
    if (head.startsWith('=')) return 'a lookahead (`(?=...)`)';
    if (head.startsWith('!')) return 'a negative lookahead (`(?!...)`)';
    if (head === '<=') return 'a lookbehind (`(?<=...)`)';
    if (head === '<!') return 'a negative lookbehind (`(?<!...)`)';
  }
  return null;
}
