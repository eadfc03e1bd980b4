import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Workspace } from '../core/workspace.js';
import { type EvalCase } from '../suite/types.js';
import { type TargetRunner } from '../targets/providers.js';
import { loadInputs } from './load.js';
import { caseKey } from './record-bundle.js';

/**
 * The pull request head's files, read as data (the judge stage's adapter reads them through the
 * contents API at the head commit): suite path → text, absent when the head has no such file.
 */
export type HeadFiles = (suitePaths: string[]) => Promise<Map<string, string>>;

/** A head case to answer, or why it cannot be. */
export type HeadCase = { evalCase: EvalCase } | { error: string };

/**
 * Targets that only call a model run no code of the pull request: the judge stage answers their
 * cases itself, from the head's version of the case, so a changed prompt is judged on its change
 * and the pull request cannot choose the answer (README "The trusted stage").
 */
export const answersItself = (runner: TargetRunner) =>
  runner.provider === 'openai' || runner.provider === 'azure';

/**
 * The most a head case's input (its messages' text and attached files) may hold: the judge stage
 * sends it to the model with the workflow's credentials, so the pull request must not choose
 * how much that costs.
 */
const MAX_HEAD_CASE_CHARS = 200_000;

/**
 * Why the judge stage does not answer a head case, or null: its input is past
 * MAX_HEAD_CASE_CHARS, or it attaches a file the stage cannot fetch (a remote file; the head is
 * read as data, nothing beyond its suite files) and would be sent without it.
 */
function headCaseProblem(c: EvalCase): string | null {
  let chars = 0;
  for (const m of c.inputMessages)
    for (const part of m.parts) {
      if (part.type === 'text') chars += part.text.length;
      else if (part.file.remote && !part.file.absPath)
        return `the pull request's case attaches ${part.file.path}, which the judge stage cannot fetch: not answered`;
      else chars += part.file.text.length;
    }
  if (chars > MAX_HEAD_CASE_CHARS)
    return `the pull request's case input is ${chars} characters, over the judge stage's ${MAX_HEAD_CASE_CHARS}: not answered (it would be sent with the workflow's credentials)`;
  return null;
}

/**
 * The head's cases of these suites, parsed by the same loader as any suite (never run; inputs
 * only), in a folder of their own: keyed by (suite path, id). A suite the head removed or that does not
 * load leaves its cases as errors that say so.
 */
export async function loadHeadCases(
  suitePaths: string[],
  read: HeadFiles,
  keys: readonly { suite: string; id: string }[],
  signal?: AbortSignal,
): Promise<Map<string, HeadCase>> {
  const out = new Map<string, HeadCase>();
  if (suitePaths.length === 0) return out;
  let texts: Map<string, string>;
  try {
    texts = await read(suitePaths);
  } catch (err) {
    for (const k of keys)
      out.set(caseKey(k.suite, k.id), {
        error: `reading the pull request's ${k.suite} failed: ${(err as Error).message}`,
      });
    return out;
  }
  const root = mkdtempSync(path.join(os.tmpdir(), 'rubric-eval-head-'));
  for (const [p, text] of texts) {
    const file = path.resolve(root, p);
    if (!file.startsWith(root + path.sep)) continue;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text, { flag: 'wx' });
  }
  // The head's prompt templates are its code: read, never rendered here (the README's trusted stage).
  const ws = new Workspace(root, true);
  // Only what the stage sends (inputs, prompts, vars): the head's assertions are never used, so
  // they are not compiled (a pattern-heavy head must not hold the stage) nor their scripts read.
  const loaded = await loadInputs({ suites: [...texts.keys()], rubric: null, answersFile: null }, ws, {
    fetchRemote: false,
    signal,
    inputsOnly: true,
  });
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  const bySuite = new Map(loaded.suites.map((s) => [s.path, s]));
  for (const k of keys) {
    const key = caseKey(k.suite, k.id);
    if (!texts.has(k.suite)) {
      out.set(key, { error: `the pull request removes ${k.suite}` });
      continue;
    }
    const problems = errors.filter((d) => d.file === k.suite || d.file.endsWith(`/${k.suite}`));
    if (problems.length > 0) {
      out.set(key, {
        error: `the pull request's ${k.suite} does not load: ${formatDiagnostic(problems[0]!)}`,
      });
      continue;
    }
    const c = bySuite.get(k.suite)?.cases.find((x) => x.id === k.id);
    const problem = c ? headCaseProblem(c) : `the pull request removes case ${k.id}`;
    out.set(key, problem ? { error: problem } : { evalCase: c! });
  }
  return out;
}
