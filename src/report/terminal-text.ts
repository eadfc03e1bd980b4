import { bounded, showControls } from './inert.js';

/**
 * The one door out to a terminal (and a workflow log) for text rubric-eval did not write: suite
 * paths, case and check ids, reasons, error messages, a shard file's fields. A workflow runner
 * obeys a line that starts with `::` (or `##[`), and a terminal obeys escape sequences, so such
 * text is made one plain line: escape sequences dropped, other controls shown as a visible code
 * point, line breaks made spaces, bounded.
 */

/** ANSI escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`), and two-character ones. */
const ANSI =
  // eslint-disable-next-line no-control-regex -- matching escape sequences is the point
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])|\u009b[0-?]*[ -/]*[@-~]/g;

/** Text from input as one inert line of at most `max` characters. */
export function plainLine(text: string, max: number): string {
  // A runner obeys `##[command]` anywhere in a line, not only at its start.
  return bounded(showControls(text.replace(ANSI, '').replace(/\s+/g, ' ')), max).replaceAll(
    '##[',
    '#\u200d#[',
  );
}

/** The longest any one string from the results is printed in a terminal. */
const MAX = 1000;

/**
 * The results with every string made one plain bounded line (`plainLine`): what the terminal
 * renderer prints from, so nothing it prints from input can start a line or carry an escape.
 */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return plainLine(value, MAX) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => terminalSafe(v)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, terminalSafe(v)])) as T;
  return value;
}

/**
 * A printed line that would start (after spaces and our own colours) with `:` or `#` is given an
 * invisible joiner after that character: a runner never reads it as a workflow command, even
 * when two pieces of input meet at the start of a line.
 */
export function notACommand(line: string): string {
  // eslint-disable-next-line no-control-regex -- our own colour codes may lead the line
  return line.replace(/^((?:\s|\u001b\[[0-9;]*m)*)([:#])/, '$1$2\u200d');
}
