import * as core from '@actions/core';
import { appendedSince, ownWrites, reclaimStepFile, regularStepFile } from './step-files.js';

/**
 * The runner's side of a step, as the action uses it: `@actions/core` for inputs, outputs (the
 * GITHUB_OUTPUT file with its delimiters), masks, annotations, groups, the job summary and the
 * failed check. Ours is only what core does not do: a logged line that would read as a command
 * is shown, not obeyed (`inertCommands`).
 */

/** Where an annotation points, as the runner reads it. */
export type AnnotationProperties = Pick<
  core.AnnotationProperties,
  'title' | 'file' | 'startLine' | 'startColumn'
>;

/**
 * A log line the runner would take for a command (`::error::…`, `::add-mask::…`, `::stop-commands::…`)
 * is one only when the action issues it: a line of logged text that merely starts that way (a case
 * id, a judge's words, a PR's title) gets a zero-width space between its colons. The runner reads
 * the same words; it no longer obeys them. `core.info` writes its text as given, line breaks and all.
 */
const COMMAND_LIKE_LINE = /(^|[\r\n])([ \t]*):(?=:)/g;

export const inertCommands = (text: string): string =>
  text.includes('::') ? text.replace(COMMAND_LIKE_LINE, '$1$2:\u200b') : text;

/** Logs text that may come from the PR or the judge: every line shown, none obeyed. */
export const info = (message: string): void => core.info(inertCommands(message));

// Annotations, masks and group names are written as one escaped command (core turns line breaks
// into %0A), so text inside them cannot start a line of its own.
export const warning = (message: string, properties: AnnotationProperties = {}): void =>
  core.warning(message, properties);
export const error = (message: string, properties: AnnotationProperties = {}): void =>
  core.error(message, properties);

/** The check fails (exit code 1) with this message as an error annotation. */
export const setFailed = (message: string): void => core.setFailed(message);

/** The runner replaces this text with `***` in every later log line. */
export const setSecret = (secret: string): void => core.setSecret(secret);

/** An input as the runner passes it (`INPUT_<NAME>`, spaces as `_`), trimmed; '' when unset. */
export const getInput = (name: string): string => core.getInput(name);

/**
 * A step output, through the GITHUB_OUTPUT file as core's delimited block. The file is refused if
 * a link or anything but a regular file stands at its name, and the block core wrote is recorded:
 * at the end of the run the file is put back to the action's own writes (step-files.ts).
 */
export function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return core.setOutput(name, value);
  reclaim('GITHUB_OUTPUT', file, ownWrites.output);
  const before = regularStepFile(file);
  core.setOutput(name, value);
  ownWrites.output += appendedSince(file, before);
}

/**
 * The step's own report always lands: a link, FIFO or folder a gate put at a step file's path is
 * replaced by a regular file holding `text` (what the action wrote there so far), with a warning.
 */
function reclaim(name: 'GITHUB_OUTPUT' | 'GITHUB_STEP_SUMMARY', file: string, text: string): void {
  const was = reclaimStepFile(file, text);
  if (was)
    core.warning(
      `${name} (${file}) was ${was}, put there by code the run executed: replaced by a regular file, where the step's ${name === 'GITHUB_OUTPUT' ? 'outputs' : 'summary'} are written`,
    );
}

/** `fn`'s log lines folded under `name` in the log. */
export const group = <T>(name: string, fn: () => Promise<T>): Promise<T> => core.group(name, fn);

/** Replaces the step's job summary (GITHUB_STEP_SUMMARY) with `markdown`. */
export async function writeJobSummary(markdown: string): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (file) {
    reclaim('GITHUB_STEP_SUMMARY', file, '');
    regularStepFile(file);
  }
  ownWrites.summary = markdown;
  // Overwrite: a gate may have written a fake report into this step's summary.
  await core.summary.emptyBuffer().addRaw(markdown).write({ overwrite: true });
}
