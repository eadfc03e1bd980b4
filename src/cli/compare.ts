import { readFileSync } from 'node:fs';
import path from 'node:path';
import { excerpt } from '../core/diagnostics.js';
import { compareWithBaseline } from '../baseline/compare.js';
import { measureEffect } from '../baseline/effect.js';
import { DEFAULT_EFFECT_MARGIN } from '../config/config.js';
import { fileOrigin } from '../baseline/load.js';
import { checkBaselineResults, parseBaselineResults } from '../baseline/read-results.js';
import { FAIL_ON } from '../config/config.js';
import { checkFailures, type FailOn, withRegressionCheck } from '../config/fail-on.js';
import { renderReport } from '../report/comment-body.js';
import { writeResultsStream } from '../report/results-file.js';
import { renderTerminal, styleFor } from '../report/terminal.js';
import { countCases, emptyUsage, type RunResults } from '../core/results.js';
import { type CliIO, EXIT_FAIL, EXIT_PASS, EXIT_USAGE, UsageError } from './io.js';
import { parseFlags } from './parse-flags.js';

const COMPARE_HELP = `Usage: rubric-eval compare <base.json> <head.json> [options]

Compares two results files case by case (on suite path and case id) and reports what changed:
broken, regressed, fixed, improved, new, redefined, removed, and what was failing on both sides;
and the pull request's effect: the mean score and pass rate, head minus base, with a 95% interval
and a verdict (improved, non-inferior, regressed, inconclusive). No model is called.

Options:
  --format <table|markdown|json>   (default table; json is the head results with the comparison)
  --fail-on <regression|effect|fail|borderline|never>   (default regression)
  --regression-margin <x>    a score drop larger than this is a regression (default 0.1)
  --effect-margin <x>        the suite's effect: a drop up to this is non-inferior (default 0.05)
  -h, --help

Exit codes: 0 pass, 1 the comparison fails --fail-on, 2 unreadable files or usage.

Example:
  rubric-eval compare main-results.json rubric-eval-results.json --format markdown`;

/** `rubric-eval compare BASE HEAD`: the compare stage on two files, rendered like `run`. */
export async function compareCommand(args: string[], io: CliIO): Promise<number> {
  const { values: v, positionals } = parseFlags(args, {
    format: { type: 'string' },
    'fail-on': { type: 'string' },
    'regression-margin': { type: 'string' },
    'effect-margin': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (v.help) {
    io.stdout.write(`${COMPARE_HELP}\n`);
    return EXIT_PASS;
  }
  if (positionals.length !== 2)
    throw new UsageError('compare needs two results files: <base.json> <head.json>');
  const format = v.format ?? 'table';
  if (!['table', 'markdown', 'json'].includes(format))
    throw new UsageError(`--format must be table, markdown or json (got '${excerpt(format)}')`);
  const failOn = (v['fail-on'] ?? 'regression') as FailOn;
  if (!FAIL_ON.includes(failOn))
    throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')} (got '${excerpt(failOn)}')`);
  const margin = Number(v['regression-margin'] ?? 0.1);
  if (!Number.isFinite(margin) || margin < 0 || margin > 1)
    throw new UsageError('--regression-margin must be a number from 0 to 1');
  const effectMargin = Number(v['effect-margin'] ?? DEFAULT_EFFECT_MARGIN);
  if (!Number.isFinite(effectMargin) || effectMargin < 0 || effectMargin > 1)
    throw new UsageError('--effect-margin must be a number from 0 to 1');

  const [baseFile, headFile] = positionals as [string, string];
  const base = parseBaselineResults(readText(baseFile, io.cwd), baseFile);
  if ('error' in base) throw new UsageError(base.error);
  const head = readHead(headFile, io.cwd);
  const cases = compareWithBaseline(head, base.results, fileOrigin(baseFile), margin);
  const compared = withRegressionCheck({ ...cases, effect: measureEffect(cases, effectMargin) }, failOn);
  if (format === 'json') await writeResultsStream(io.stdout as NodeJS.WritableStream, compared);
  else if (format === 'markdown') io.stdout.write(renderReport(compared));
  else io.stdout.write(renderTerminal(compared, styleFor(io.stdout, io.env)));
  if (compared.errors.length > 0) return EXIT_USAGE;
  return checkFailures(compared, failOn).length > 0 ? EXIT_FAIL : EXIT_PASS;
}

function readText(file: string, cwd: string): string {
  try {
    return readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The head side is rendered, so it must be a whole results file: checked as a baseline is
 * (version, shape), then the fields a renderer reads get their defaults.
 */
function readHead(file: string, cwd: string): RunResults {
  let raw: Partial<RunResults>;
  try {
    raw = JSON.parse(readText(file, cwd)) as Partial<RunResults>;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file} is not readable JSON (${(err as Error).message})`, { cause: err });
  }
  const checked = checkBaselineResults(raw, file);
  if ('error' in checked) throw new UsageError(checked.error);
  const counts = countCases(checked.results.suites.flatMap((s) => s.cases.map((c) => c.verdict)));
  return {
    ...raw,
    version: 1,
    verdict: raw.verdict ?? 'fail',
    score: typeof raw.score === 'number' ? raw.score : 0,
    counts: raw.counts ?? counts,
    suites: (raw.suites ?? []).map((s) => ({
      ...s,
      description: s.description ?? null,
      cases: s.cases.map((c) => ({
        ...c,
        gating_violations: c.gating_violations ?? [],
        evaluators: c.evaluators ?? [],
      })),
    })),
    rubric: raw.rubric ?? null,
    usage: raw.usage ?? emptyUsage(),
    partial: raw.partial ?? false,
    errors: raw.errors ?? [],
    warnings: raw.warnings ?? [],
    history: raw.history ?? [],
    judge: raw.judge ?? null,
    started_at: raw.started_at ?? '',
    duration_ms: raw.duration_ms ?? 0,
  };
}
