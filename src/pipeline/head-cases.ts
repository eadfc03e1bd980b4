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
 * The head's cases of these suites, parsed by the same loader as any suite (never run), in a
 * folder of their own: keyed by (suite path, id). A suite the head removed or that does not
 * load leaves its cases as errors that say so.
 */
export async function loadHeadCases(
  suitePaths: string[],
  read: HeadFiles,
  keys: readonly { suite: string; id: string }[],
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
  // The head's prompt templates are its code: read, never rendered here (CONTRACTS §11).
  const ws = new Workspace(root, true);
  const loaded = await loadInputs({ suites: [...texts.keys()], rubric: null, answersFile: null }, ws, {
    fetchRemote: false,
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
    out.set(key, c ? { evalCase: c } : { error: `the pull request removes case ${k.id}` });
  }
  return out;
}
