import path from 'node:path';
import { type Config } from '../config/config.js';
import { type Diagnostic } from '../core/diagnostics.js';
import { type MarkdownRubric, rubricFromInput } from '../checker/markdown-rubric.js';
import { type EvalSuite } from '../suite/types.js';
import { type Workspace } from '../core/workspace.js';
import { loadAnswersFile, matchAnswers } from '../targets/answers-file.js';
import { type TargetRunner } from '../targets/providers.js';

/** Everything the run reads from disk, validated: what the later stages work from. */
export interface LoadedInputs {
  suites: EvalSuite[];
  rubric: MarkdownRubric | undefined;
  /** Recorded answers used instead of any target. */
  answers: TargetRunner | null;
  diagnostics: Diagnostic[];
}

/**
 * Stage 1, load and validate: every suite, the markdown rubric and the answers file, collecting
 * all problems of all files before anyone decides to stop (no model is called while any is invalid).
 */
export async function loadInputs(
  config: Pick<Config, 'suites' | 'rubric' | 'answersFile'> & Partial<Pick<Config, 'judge' | 'cacheDir'>>,
  ws: Workspace,
  io: {
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    warn?(message: string): void;
    /** `validate` checks files offline: GitHub URL files are fetched by runs only. */
    fetchRemote?: boolean;
    /** Cases' inputs only, assertions unread (the judge stage's head cases: suite/load-suite.ts). */
    inputsOnly?: boolean;
  } = {},
): Promise<LoadedInputs> {
  const diagnostics: Diagnostic[] = [];
  let suites: EvalSuite[] = [];
  if (config.suites.length > 0) {
    // The suite loader (both YAML parsers, the suite schemas) is evaluated only for suites: a
    // rubric-only run never needs it.
    const [{ findSuiteFiles, loadSuites }, { fetchRemoteFiles }] = await Promise.all([
      import(/* webpackMode: "eager" */ '../suite/discover.js'),
      import(/* webpackMode: "eager" */ '../suite/remote-files.js'),
    ]);
    const found = await findSuiteFiles(config.suites, ws.root);
    diagnostics.push(...found.diagnostics);
    const r = await loadSuites(found.files, ws, { signal: io.signal, inputsOnly: io.inputsOnly });
    diagnostics.push(...r.diagnostics);
    suites = r.suites;
    // Files given as GitHub URLs: fetched now, so a run never starts with one missing.
    if (io.fetchRemote !== false)
      diagnostics.push(
        ...(await fetchRemoteFiles(suites, {
          apiUrl: io.env?.GITHUB_API_URL || 'https://api.github.com',
          token: config.judge?.githubToken ?? null,
          cacheDir: config.cacheDir ? path.resolve(ws.root, config.cacheDir) : null,
          signal: io.signal,
          warn: io.warn,
        })),
      );
  }
  let rubric: MarkdownRubric | undefined;
  if (config.rubric) {
    const r = rubricFromInput(config.rubric, ws, ws.root);
    diagnostics.push(...r.diagnostics);
    rubric = r.rubric;
  }
  let answers: TargetRunner | null = null;
  if (config.answersFile) {
    const abs = path.resolve(ws.root, config.answersFile);
    const r = loadAnswersFile(abs, ws);
    diagnostics.push(...r.diagnostics);
    answers = r.runner ?? null;
    const cases = suites.flatMap((s) => s.cases);
    if (r.lines && cases.length > 0) diagnostics.push(...matchAnswers(ws.display(abs), r.lines, cases));
  }
  return { suites, rubric, answers, diagnostics };
}
