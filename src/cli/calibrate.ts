import path from 'node:path';
import { parseArgs } from 'node:util';
import { configFromInputs, parseInputs } from '../config/config.js';
import { excerpt } from '../core/diagnostics.js';
import { CLI_SETTINGS } from '../core/setting-names.js';
import { createRunContext } from '../pipeline/context.js';
import { loadInputs } from '../pipeline/load.js';
import { planProblems, planRun } from '../pipeline/plan.js';
import { belowFloor } from '../calibration/advisory.js';
import { shownCheck } from '../core/calibration-results.js';
import { measureJudge } from '../calibration/measure.js';
import { calibrationMarkdown, calibrationTable, disagreementLines } from '../calibration/render.js';
import { planCalibration, workingTreeLabels } from '../calibration/stage.js';
import { runJudgeFor } from '../pipeline/calibrate.js';
import { escapeRunnerCommands } from '../report/results-file.js';
import { type CliIO, EXIT_FAIL, EXIT_PASS, EXIT_USAGE, UsageError } from './io.js';
import { judgeFlags, judgeInputs } from './judge-flags.js';

const CALIBRATE_HELP = `Usage: rubric-eval calibrate <suite-globs...> --labels <labels.jsonl> [options]

Judges every labelled answer with its suite's own evaluators (cached: a re-run makes no call) and
reports, per check and pooled, how far the judge agrees with people: n, agreement, Cohen's κ with
a 95% bootstrap interval, TPR, TNR, the two disagreement counts; weighted κ and MAE for 0-10 ranges.
Worst checks first. A labels line: {"suite", "id", "answer", "labels": {"<check id>": true|false|0..10}, "rater"}.

Options:
  --labels <file>              the labels file (JSONL), required
  --format <table|markdown|json>   (default table)
  --disagreements              list the labelled answers where judge and people differ, as label
                               lines ready to re-label (with the judge's verdicts beside them)
  --min-judge-agreement <κ>    exit 1 when a check's κ is below this (what the action makes advisory)
  --judge-samples <n|auto>     judge samples, as for run
  --judge-model, --judge-base-url, --judge-timeout, --targets, --target, --concurrency,
  --cache-dir <dir>, --no-cache, --cwd <dir>   as for run
  -h, --help

Examples:
  rubric-eval calibrate 'evals/*.yaml' --labels evals/labels.jsonl
  rubric-eval calibrate 'evals/*.yaml' --labels evals/labels.jsonl --disagreements > relabel.jsonl`;

const options = {
  cwd: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  labels: { type: 'string' },
  format: { type: 'string' },
  disagreements: { type: 'boolean' },
  'min-judge-agreement': { type: 'string' },
  ...judgeFlags,
} as const;

function parse(args: string[]) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
}

/** `calibrate`: the judge against people's labels, per check. Exit 0 measured, 1 below --min-judge-agreement or unjudged, 2 invalid input. */
export async function calibrateCommand(args: string[], io: CliIO): Promise<number> {
  const { values: v, positionals } = parse(args);
  if (v.help) {
    io.stdout.write(`${CALIBRATE_HELP}\n`);
    return EXIT_PASS;
  }
  if (!v.labels) throw new UsageError('calibrate needs --labels <labels.jsonl>');
  if (positionals.length === 0) throw new UsageError('calibrate needs the suite globs the labels are for');
  const format = v.format ?? 'table';
  if (format !== 'table' && format !== 'markdown' && format !== 'json')
    throw new UsageError(`--format must be table, markdown or json (got '${excerpt(format)}')`);
  const parsed = parseInputs({
    ...judgeInputs(v, io.env),
    suites: positionals.join('\n'),
    calibration: v.labels,
    'min-judge-agreement': v['min-judge-agreement'],
  });
  if ('errors' in parsed) throw new UsageError(parsed.errors.join('\n'));
  const config = configFromInputs(parsed.inputs, {
    workingDirectory: path.resolve(io.cwd, v.cwd ?? '.'),
    resultsFile: '',
    cacheDir: v['no-cache'] ? null : undefined,
    cacheMode: v['no-cache'] ? 'off' : 'readwrite',
  });
  const warn = (m: string) => io.stderr.write(`warning: ${m}\n`);
  const ctx = createRunContext(config, {
    env: io.env,
    signal: io.signal,
    hooks: { warn },
    settings: CLI_SETTINGS,
  });
  // Targets are planned for their judges only (a case's judge_target); none is called.
  const plan = planRun(await loadInputs(config, ctx.ws, ctx), config, ctx, { unsetEnv: 'warning' });
  const problems = planProblems(plan).errors;
  const cp = problems.length ? null : await planCalibration(config, plan, workingTreeLabels(ctx.ws));
  const errors = [...problems, ...(cp?.errors ?? [])];
  if (errors.length || !cp) {
    for (const e of errors) io.stderr.write(`${e}\n`);
    return EXIT_USAGE;
  }
  const report = await measureJudge(cp.gating, {
    judgeFor: runJudgeFor(plan, ctx),
    exec: ctx.exec,
    redactor: ctx.redactor,
    concurrency: config.concurrency,
    signal: io.signal,
  });
  await ctx.judges.settle();
  const notice = ctx.judges.cacheNotice(ctx.ws, ctx.settings);
  if (notice) warn(notice);
  const u = report.usage;
  io.stderr.write(
    `calibrate: ${u.judge_calls} judge call${u.judge_calls === 1 ? '' : 's'} (+${u.cached_calls} cached)\n`,
  );
  if (v.disagreements) {
    if (format === 'json')
      io.stdout.write(`${escapeRunnerCommands(JSON.stringify(report.disagreements, null, 2))}\n`);
    else io.stdout.write(disagreementLines(report.disagreements, cp.file));
  } else if (format === 'json') {
    const { disagreements: _d, ...rest } = report;
    io.stdout.write(`${escapeRunnerCommands(JSON.stringify(rest, null, 2))}\n`);
  } else io.stdout.write(format === 'markdown' ? calibrationMarkdown(report) : calibrationTable(report));
  for (const e of report.errors) io.stderr.write(`${cp.file}:${e.line}: could not be judged: ${e.error}\n`);
  const below = belowFloor(report.rows, cp.floor);
  for (const b of below)
    io.stderr.write(`below min-judge-agreement: ${b.suite} › ${b.id} › ${shownCheck(b)}: ${b.reason}\n`);
  return report.errors.length || below.length ? EXIT_FAIL : EXIT_PASS;
}
