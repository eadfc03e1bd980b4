import path from 'node:path';
import { type Config, type Inputs } from '../config/config.js';
import { checkFailure } from '../config/fail-on.js';
import { DiagnosticSink } from '../core/diagnostics.js';
import { readUserFile } from '../core/user-file.js';
import { Workspace } from '../core/workspace.js';
import { type ReportedRun } from '../pipeline/finish.js';
import { checkConclusion, checkRunAnnotations, checkRunOutput, type Placement } from '../report/check-run.js';
import { idKeyLine } from '../report/id-key-line.js';
import { type ActionRunContext } from './run-context.js';

/**
 * `check-run: true` (README "Check run"): the run as a check run on the commit judged (the pull
 * request's head, in `stage: judge` the recorded run's head), named after `status-context`. A
 * shard leaves it to the merge. Nothing here decides the step.
 */
export async function reportCheckRun(
  outcome: ReportedRun,
  config: Config,
  ctx: ActionRunContext,
  i: Pick<Inputs, 'check-run' | 'status-context' | 'github-token' | 'github-timeout'>,
  o: { warn: (m: string) => void; info: (m: string) => void; signal: AbortSignal },
): Promise<void> {
  if (!i['check-run']) return;
  if (config.shard) return o.info('check-run: a shard reports no check run; the merge job does');
  const token = i['github-token'];
  if (!token || !ctx.repo || !ctx.commit)
    return o.warn('check-run: needs `github-token`, GITHUB_REPOSITORY and a commit; no check run is made');
  if (o.signal.aborted) return o.warn('cancelled: no check run is made');
  const { results, redactor } = outcome;
  const redact = (t: string) => redactor.redact(t);
  const { annotations, unannotated } = checkRunAnnotations(
    results,
    redact,
    checkRunPlacement(config, ctx.workspace),
  );
  const failed = checkFailure(results, config) !== null;
  const [{ createOctokit }, { publishCheckRun }] = await Promise.all([
    import(/* webpackMode: "eager" */ './client.js'),
    import(/* webpackMode: "eager" */ './check-run.js'),
  ]);
  const octokit = createOctokit(token, {
    warn: o.warn,
    timeoutMs: i['github-timeout'] * 1000,
    signal: o.signal,
  });
  const id = await publishCheckRun(
    octokit,
    ctx.repo,
    {
      name: i['status-context'],
      sha: ctx.commit,
      conclusion: checkConclusion(failed, config.failOn),
      output: checkRunOutput(results, {
        runUrl: ctx.runUrl,
        unannotated,
        reportFile: config.reportHtml ? path.basename(config.reportHtml) : null,
        redact,
      }),
      annotations,
      detailsUrl: ctx.runUrl,
    },
    o,
  );
  if (id !== null)
    o.info(
      `check run ${id} on ${ctx.commit.slice(0, 7)}: ${annotations.length} annotation(s)${unannotated ? `, ${unannotated} not annotated` : ''}`,
    );
}

/**
 * Paths from the repository root (the workspace), not `working-directory`; a YAML case's line
 * moved to its `id:` key, its suite read once through the checkout's one reader.
 */
export function checkRunPlacement(config: Pick<Config, 'workingDirectory'>, workspace: string): Placement {
  const ws = new Workspace(config.workingDirectory);
  const texts = new Map<string, string | undefined>();
  const textOf = (suite: string) => {
    if (!texts.has(suite))
      texts.set(
        suite,
        readUserFile(path.resolve(config.workingDirectory, suite), ws, 'suite', new DiagnosticSink(suite)),
      );
    return texts.get(suite);
  };
  return {
    repoPath: (p) =>
      path.relative(workspace, path.resolve(config.workingDirectory, p)).split(path.sep).join('/'),
    idLine: (suite, line) => {
      if (!/\.ya?ml$/i.test(suite)) return line;
      const text = textOf(suite);
      return text === undefined ? line : idKeyLine(text, line);
    },
  };
}
