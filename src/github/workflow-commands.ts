import { randomUUID } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { ownWrites, writeStepFile } from './step-files.js';
import { EOL } from 'node:os';
import { RubricEvalError } from '../core/errors.js';

/**
 * The runner's side of a step, as the action uses it: log lines, annotations, masks, groups,
 * inputs, outputs and the job summary. These are the runner's workflow commands (`::name
 * props::message` lines on stdout and the GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files), written
 * exactly as `@actions/core` writes them. Not that package: importing it evaluates its OIDC
 * helper's HTTP client and undici, a quarter of the bundle, before the first log line.
 */

/** Where an annotation points, as the runner reads it. */
export interface AnnotationProperties {
  title?: string;
  file?: string;
  startLine?: number;
  startColumn?: number;
}

/** A property value: the runner splits on `,` and `:`, and a line break would end the command. */
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

function issue(
  command: string,
  message: string,
  properties: Record<string, string | number | undefined> = {},
) {
  const props = Object.entries(properties)
    .filter(([, v]) => v !== undefined && v !== '' && v !== 0)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  process.stdout.write(`::${command}${props ? ` ${props}` : ''}::${escapeData(message)}${EOL}`);
}

/** The runner's names for an annotation's place (`startLine` is `line`, `startColumn` is `col`). */
const place = (p: AnnotationProperties) => ({
  title: p.title,
  file: p.file,
  line: p.startLine,
  col: p.startColumn,
});

/**
 * A log line the runner would take for a command (`::error::…`, `::add-mask::…`, `::stop-commands::…`)
 * is one only when the action issues it: a line of logged text that merely starts that way (a case
 * id, a judge's words, a PR's title) gets a zero-width space between its colons. The runner reads
 * the same words; it no longer obeys them.
 */
const COMMAND_LIKE_LINE = /(^|[\r\n])([ \t]*):(?=:)/g;

export const info = (message: string) =>
  void process.stdout.write(
    (message.includes('::') ? message.replace(COMMAND_LIKE_LINE, '$1$2:\u200b') : message) + EOL,
  );
export const warning = (message: string, properties: AnnotationProperties = {}) =>
  issue('warning', message, place(properties));
export const error = (message: string, properties: AnnotationProperties = {}) =>
  issue('error', message, place(properties));

/** The check fails (exit code 1) with this message as an error annotation. */
export function setFailed(message: string): void {
  process.exitCode = 1;
  error(message);
}

/** The runner replaces this text with `***` in every later log line. */
export const setSecret = (secret: string) => issue('add-mask', secret);

/** An input as the runner passes it (`INPUT_<NAME>`, spaces as `_`), trimmed; '' when unset. */
export const getInput = (name: string) =>
  (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '').trim();

/**
 * A step output, appended to GITHUB_OUTPUT as a `name<<delimiter` block whose random delimiter
 * the value cannot end early; the `set-output` command where no such file is given.
 */
export function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT || '';
  if (!file) {
    process.stdout.write(EOL);
    return issue('set-output', value, { name });
  }
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter))
    throw new RubricEvalError(`Unexpected input: the output ${name} contains its delimiter "${delimiter}"`);
  if (!existsSync(file)) throw new RubricEvalError(`Missing file at path: ${file}`);
  const block = `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
  // Recorded first: should the write fail (a gate left a link there), the end of the run writes it.
  ownWrites.output += block;
  writeStepFile(file, block, 'append');
}

/** `fn`'s log lines folded under `name` in the log. */
export async function group<T>(name: string, fn: () => Promise<T>): Promise<T> {
  issue('group', name);
  try {
    return await fn();
  } finally {
    issue('endgroup', '');
  }
}

/** Replaces the step's job summary (GITHUB_STEP_SUMMARY) with `markdown`. */
export async function writeJobSummary(markdown: string): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file)
    throw new RubricEvalError(
      'Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.',
    );
  try {
    await access(file, constants.R_OK | constants.W_OK);
  } catch {
    throw new RubricEvalError(
      `Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`,
    );
  }
  ownWrites.summary = markdown;
  writeStepFile(file, markdown, 'truncate');
}
