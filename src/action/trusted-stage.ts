import path from 'node:path';
import { type Config, type Inputs } from '../config/config.js';
import { checkFailure } from '../config/fail-on.js';
import { excerpt } from '../core/diagnostics.js';
import { type RunResults } from '../core/results.js';
import { Redactor, secretsFromEnv } from '../exec/redact.js';
import * as core from '../github/workflow-commands.js';
import { untilCancelled } from '../github/call-outcome.js';
import { type Octokit, type Repo } from '../github/client.js';
import { commentHistory, openSurface, type PullRequestSurface } from '../github/pr-comment.js';
import { type ActionRunContext } from '../github/run-context.js';
import { type PullRequestFile } from '../github/pull-request.js';
import { type RecordRun, type RunPullRequest } from '../github/workflow-run.js';
import { type ReportedRun } from '../pipeline/finish.js';
import { recordEvaluation } from '../pipeline/record.js';
import {
  bundleMismatches,
  parseBundle,
  type RecordBundle,
  writeBundleFile,
} from '../pipeline/record-bundle.js';
import { mergeRecordBundles, type NamedBundle } from '../pipeline/record-shards.js';
import { evaluateOrExplain } from '../pipeline/run.js';
import { shardLabel } from '../pipeline/shard.js';
import { invalidInputResults } from '../report/results-file.js';

const warn = (m: string) => core.warning(m);
const info = (m: string) => core.info(m);

/**
 * `stage: record` on `pull_request` (README "The trusted stage"): answers and gates into the
 * bundle, nothing judged, nothing posted. Exits 0 once the bundle is written: the judge stage
 * decides the check.
 */
export async function recordStageAction(
  config: Config,
  ctx: ActionRunContext,
  signal: AbortSignal,
): Promise<void> {
  if (!ctx.pr)
    warn(
      'stage record runs on pull_request: this bundle names no pull request, and the judge stage will refuse it',
    );
  const outcome = await recordEvaluation(
    config,
    { env: process.env, signal, hooks: { info, warn, phase: (name, fn) => core.group(name, fn) } },
    {
      repository: ctx.repo ? `${ctx.repo.owner}/${ctx.repo.repo}` : null,
      prNumber: ctx.pr?.number ?? null,
      headSha: ctx.pr?.head.sha ?? ctx.commit,
      baseSha: ctx.pr?.base?.sha ?? null,
    },
  );
  const { bundle } = outcome;
  const file = config.recordFile ?? path.resolve(config.workingDirectory, 'rubric-eval-record.json');
  try {
    writeBundleFile(file, bundle);
  } catch (err) {
    return core.setFailed(`could not write the record bundle ${file}: ${(err as Error).message}`);
  }
  for (const e of bundle.errors ?? []) core.error(e);
  const failed = bundle.answers.filter((a) => a.error !== null).length;
  const lines = [
    `### rubric-eval: recorded for the judge stage`,
    '',
    `${bundle.shard ? `**${shardLabel(bundle.shard)}** of ${bundle.shard.planned} planned cases: ` : ''}${bundle.answers.length} answer${bundle.answers.length === 1 ? '' : 's'} (${failed} target error${failed === 1 ? '' : 's'}) and ${bundle.gates.length} gate result${bundle.gates.length === 1 ? '' : 's'} written to \`${path.basename(file)}\`. Nothing was judged here: the judge workflow judges ${bundle.shard ? "every shard's bundle" : 'this bundle'} with the base branch's suites and sets the commit status.`,
    ...(bundle.errors?.length
      ? ['', `**${bundle.errors.length} problem(s) stopped the recording**; the judge stage reports them.`]
      : []),
  ];
  try {
    await core.writeJobSummary(`${lines.join('\n')}\n`);
  } catch {
    /* the log says the same */
  }
  info(
    `rubric-eval: record bundle written to ${file} (${bundle.answers.length} answers, ${bundle.gates.length} gates)`,
  );
  if (outcome.partial) core.setFailed('rubric-eval: cancelled; the record bundle is partial');
}

/** How the action reports a run (action/report-run.ts: the results file, summary, comment, outputs, check). */
type Report = (
  outcome: ReportedRun,
  ctx: ActionRunContext,
  surface: PullRequestSurface | null,
) => Promise<void>;

/**
 * `stage: judge` on `workflow_run` (README "The trusted stage"): the record run's bundle, checked as hostile
 * input, judged with this checkout's (the base branch's) suites; the comment on the pull
 * request GitHub names for the run's commit, and a commit status on that commit, `pending`
 * first. Anything that stops the judging is status `error`, never `success`.
 */
export async function judgeStageAction(
  i: Inputs,
  config: Config,
  ctx: ActionRunContext,
  payload: unknown,
  o: { signal: AbortSignal; report: Report },
): Promise<void> {
  const { signal } = o;
  const [{ createOctokit }, wr, { commitStatusWriter, statusFromResults }] = await Promise.all([
    import(/* webpackMode: "eager" */ '../github/client.js'),
    import(/* webpackMode: "eager" */ '../github/workflow-run.js'),
    import(/* webpackMode: "eager" */ '../github/commit-status.js'),
  ]);
  const token = i['github-token'] ?? '';
  const repo = ctx.repo;
  const run = wr.recordRunOf(payload, ctx.serverUrl, repo);
  if (!repo || !token || 'error' in run) {
    const why = 'error' in run ? run.error : 'stage judge needs `github-token` and GITHUB_REPOSITORY';
    return o.report(fallback([why], i), ctx, null);
  }
  const octokit = createOctokit(token, { warn, timeoutMs: i['github-timeout'] * 1000, signal });
  const status = commitStatusWriter(token, repo, run.headSha, {
    context: i['status-context'],
    targetUrl: ctx.runUrl,
    timeoutMs: i['github-timeout'] * 1000,
    warn,
    signal,
  });
  await status({ state: 'pending', description: "rubric-eval: judging the pull request's recorded answers" });
  const found = await wr.findRunPullRequest(octokit, repo, run, signal);
  const pr = 'pr' in found ? found.pr : null;
  const checked = pr
    ? await checkedBundle(octokit, repo, run, pr, config, signal)
    : { errors: [(found as { error: string }).error] };
  const prCtx: ActionRunContext = { ...ctx, pr, commit: run.headSha };
  const surface = pr
    ? await openSurface({ pr, octokit, token, repo, run: ctx.run, mode: i.comment, warn, signal })
    : null;
  let outcome: ReportedRun;
  if ('errors' in checked) {
    outcome = fallback(checked.errors, i);
    outcome.results.trusted = trustedStub(run, pr);
  } else {
    outcome = await judgeBundle(config, checked, { octokit, repo, run, pr: pr!, surface, signal });
  }
  await o.report(outcome, prCtx, surface);
  const failed = checkFailure(outcome.results, config) !== null;
  await status(statusFromResults(outcome.results, failed));
}

/**
 * The bundle (or every shard's, merged), downloaded and checked against what GitHub says; every
 * problem named, with the artifact it is in.
 */
async function checkedBundle(
  octokit: Octokit,
  repo: Repo,
  run: RecordRun,
  pr: RunPullRequest,
  config: Config,
  signal: AbortSignal,
): Promise<{ bundle: RecordBundle; shards: number } | { errors: string[] }> {
  if (run.conclusion && run.conclusion !== 'success')
    return {
      errors: [
        `the pull request's record run #${run.id} ended ${excerpt(run.conclusion)}: its answers are not judged; see that run`,
      ],
    };
  const { downloadRecordBundles } = await import(/* webpackMode: "eager" */ '../github/workflow-run.js');
  const file = path.basename(config.recordFile ?? 'rubric-eval-record.json');
  const got = await downloadRecordBundles(octokit, repo, run, file, signal);
  if ('error' in got) return { errors: [got.error] };
  const parts: NamedBundle[] = [];
  const errors: string[] = [];
  for (const b of got.bundles) {
    const parsed = parseBundle(b.text);
    if ('errors' in parsed)
      errors.push(...parsed.errors.map((e) => (got.bundles.length > 1 ? `${excerpt(b.artifact)}: ${e}` : e)));
    else parts.push({ artifact: b.artifact, bundle: parsed.bundle });
  }
  if (errors.length > 0) return { errors: errors.slice(0, 20) };
  const merged = mergeRecordBundles(parts);
  if ('errors' in merged) return merged;
  const mismatches = bundleMismatches(merged.bundle, {
    repository: `${repo.owner}/${repo.repo}`,
    headSha: run.headSha,
    prNumber: pr.number,
  });
  return mismatches.length > 0 ? { errors: mismatches } : { bundle: merged.bundle, shards: parts.length };
}

/** The engine on the checked bundle, with the pull request's text and diff from the API. */
async function judgeBundle(
  config: Config,
  { bundle, shards }: { bundle: RecordBundle; shards: number },
  at: {
    octokit: Octokit;
    repo: Repo;
    run: RecordRun;
    pr: RunPullRequest;
    surface: PullRequestSurface | null;
    signal: AbortSignal;
  },
): Promise<ReportedRun> {
  const { octokit, repo, run, pr, signal } = at;
  const [{ pullRequestSubject }, { startBaselineLookup }, { readHeadFiles }] = await Promise.all([
    import(/* webpackMode: "eager" */ '../github/pull-request.js'),
    import(/* webpackMode: "eager" */ '../github/baseline-artifact.js'),
    import(/* webpackMode: "eager" */ '../github/workflow-run.js'),
  ]);
  const [history, listed] = await Promise.all([
    commentHistory(at.surface),
    pullRequestFiles(octokit, repo, pr.number, signal),
  ]);
  // Listed once: the rubric's subject and what the PR changes among the judged files both read it.
  const prFiles = new Set((listed ?? []).map((f) => f.filename));
  const rel = repoPath(config);
  const outcome = await evaluateOrExplain(
    config,
    {
      env: process.env,
      signal,
      subject: () =>
        untilCancelled(
          pullRequestSubject(octokit, repo, pr.number, pr.title, pr.body ?? '', listed ?? undefined),
          signal,
        ),
      baseline: startBaselineLookup(config.baseline, {
        octokit,
        repo,
        base: pr.base,
        resultsFileName: path.basename(config.resultsFile),
        serverUrl: null,
        signal,
      }),
      history,
      commit: run.headSha,
      recorded: {
        bundle,
        run: { id: run.id, url: run.url, conclusion: run.conclusion },
        shards,
        // Model-only targets are answered here, from the head's suite files read as data.
        headFiles: (paths) => readHeadFiles(octokit, repo, run.headSha, paths, rel, signal),
        changes: (file) => prFiles.has(rel(file)),
      },
      hooks: {
        info,
        warn,
        progress: (p) => info(`[${p.done}/${p.total}] ${p.caseId} ${p.verdict} ${p.score.toFixed(2)}`),
        phase: (name, fn) => core.group(name, fn),
      },
    },
    { error: (m) => core.error(m), info },
  );
  if (outcome.results.trusted)
    outcome.results.trusted.changed_files = changedGradingFiles(prFiles, outcome.results, rel);
  return outcome;
}

/** The files the pull request changes, as the API lists them; none (with a warning) when it cannot. */
async function pullRequestFiles(
  octokit: Octokit,
  repo: Repo,
  prNumber: number,
  signal: AbortSignal,
): Promise<PullRequestFile[] | null> {
  try {
    const { listPullRequestFiles } = await import(/* webpackMode: "eager" */ '../github/pull-request.js');
    return await untilCancelled(listPullRequestFiles(octokit, repo, prNumber), signal);
  } catch (err) {
    warn(`could not list the pull request's files: ${(err as Error).message}`);
    return null;
  }
}

/** The pull request's changed files that are judged files here (a suite, the rubric) or new suites. */
function changedGradingFiles(
  prFiles: ReadonlySet<string>,
  results: RunResults,
  rel: (p: string) => string,
): string[] {
  const judged = new Set([
    ...results.suites.map((s) => rel(s.path)),
    ...(results.rubric ? [rel(results.rubric.path)] : []),
    ...(results.trusted?.new_in_pr ?? []).map((k) => rel(k.slice(0, k.lastIndexOf('#')))),
  ]);
  return [...prFiles].filter((f) => judged.has(f));
}

/** A path under `working-directory` as the repository names it (the checkout is the workspace). */
const repoPath =
  (config: Config) =>
  (p: string): string =>
    path
      .relative(process.env.GITHUB_WORKSPACE ?? process.cwd(), path.resolve(config.workingDirectory, p))
      .split(path.sep)
      .join('/');

/** A run that judged nothing: the results say why, and the status is `error`. */
function fallback(errors: string[], i: Inputs): ReportedRun {
  const secrets = [i['judge-api-key'], i['github-token']].filter((s): s is string => !!s);
  return {
    results: invalidInputResults(errors),
    redactor: new Redactor([...secrets, ...secretsFromEnv(process.env)]),
    diagnostics: [],
  };
}

function trustedStub(run: RecordRun, pr: RunPullRequest | null): NonNullable<RunResults['trusted']> {
  return {
    stage: 'judge',
    record_run: { id: run.id, url: run.url, conclusion: run.conclusion },
    pr_number: pr?.number ?? null,
    head_sha: run.headSha,
    new_in_pr: [],
    unanswered: [],
    extra_gates: [],
  };
}
