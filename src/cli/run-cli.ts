import { RubricEvalError } from '../core/errors.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ParseArgsConfig } from 'node:util';
import { type Config, configFromInputs, parseInputs } from '../config/config.js';
import { excerpt, formatDiagnostic } from '../core/diagnostics.js';
import { parseFlags as parse } from './parse-flags.js';
import { writeResultsOrFallback, writeResultsStream, WrittenText } from '../report/results-file.js';
import { renderReport } from '../report/comment-body.js';
import { renderTerminal, styleFor } from '../report/terminal.js';
import { writeJunitFile } from '../report/junit.js';
import { writeHtmlReport } from '../report/html-report.js';
import { readRecordingMeta } from '../judge/cache.js';
import { defaultCacheDir } from '../judge/cache-place.js';
import { type RunResults } from '../core/results.js';
import { readUserBaseline } from '../baseline/load.js';
import { checkFailures } from '../config/fail-on.js';
import { validateRun } from '../pipeline/validate.js';
import { CLI_SETTINGS } from '../core/setting-names.js';
import { type Progress } from '../pipeline/execute.js';
import { runEvaluation } from '../pipeline/run.js';
import { shardLabel } from '../pipeline/shard.js';
import { gitDiffSubject, lastCommitSubject, type Subject, subjectFromDiff } from '../checker/subject.js';
import { compareCommand } from './compare.js';
import { calibrateCommand } from './calibrate.js';
import { planCommand } from './plan.js';
import packageJson from '../../package.json' with { type: 'json' };
import { GENERATE_HELP, mainHelp, MERGE_HELP, RUN_HELP, VALIDATE_HELP } from './help.js';
import { inertIO } from './inert-io.js';
import { type CliIO, EXIT_FAIL, EXIT_PASS, EXIT_USAGE, UsageError } from './io.js';
import { judgeFlags, judgeInputs } from './judge-flags.js';

export { type CliIO };

// package.json is the one place the version is written; the bundle inlines it.
const VERSION = packageJson.version;

const common = {
  cwd: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const runOptions = {
  ...common,
  ...judgeFlags,
  rubric: { type: 'string' },
  answers: { type: 'string' },
  'judge-replay': { type: 'string' },
  'fail-on': { type: 'string' },
  'gate-timeout': { type: 'string' },
  diff: { type: 'string' },
  base: { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  shard: { type: 'string' },
  baseline: { type: 'string' },
  'regression-margin': { type: 'string' },
  'effect-margin': { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  verbose: { type: 'boolean' },
  'min-pass-rate': { type: 'string' },
  'budget-usd': { type: 'string' },
  calibration: { type: 'string' },
  'min-judge-agreement': { type: 'string' },
  repeat: { type: 'string' },
  'min-case-pass-rate': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const mergeOptions = {
  ...common,
  'fail-on': { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  verbose: { type: 'boolean' },
  'min-pass-rate': { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export async function runCli(given: CliIO): Promise<number> {
  const io = inertIO(given);
  const out = (s: string) => io.stdout.write(s);
  const err = (s: string) => io.stderr.write(s);
  const [command, ...rest] = io.argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        out(`${mainHelp(VERSION)}\n`);
        return command === undefined ? EXIT_USAGE : EXIT_PASS;
      case '--version':
      case '-v':
        out(`${VERSION}\n`);
        return EXIT_PASS;
      case 'run':
        return await runCommand(rest, io);
      case 'validate':
        return validateCommand(rest, io);
      case 'merge':
        return await mergeCommand(rest, io);
      case 'generate':
        return await generateCommand(rest, io);
      case 'compare':
        return await compareCommand(rest, io);
      case 'calibrate':
        return await calibrateCommand(rest, io);
      case 'plan':
        return planCommand(rest, io);
      default:
        throw new UsageError(`unknown command '${excerpt(command)}'`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(`rubric-eval: ${e.message}\nRun 'rubric-eval --help' for usage.\n`);
      return EXIT_USAGE;
    }
    err(`rubric-eval: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT_USAGE;
  }
}

async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { values: v, positionals } = parse(args, runOptions);
  if (v.help) {
    io.stdout.write(`${RUN_HELP}\n`);
    return EXIT_PASS;
  }
  const format = parseFormat(v.format);
  if (v.shard !== undefined && !v.out)
    throw new UsageError(
      '--shard needs --out <file>: the shard results file is what `rubric-eval merge` reads',
    );
  const config = runConfig(v, positionals, io);
  if (v['judge-replay'])
    io.stderr.write(
      `rubric-eval: the judge is RECORDED: answers replayed from ${v['judge-replay']}, no model is called\n`,
    );
  const baselineFile = v.baseline;
  const outcome = await runEvaluation(config, {
    env: io.env,
    signal: io.signal,
    subject: () => cliSubject(config, io.cwd),
    baseline: baselineFile ? () => Promise.resolve(readUserBaseline(baselineFile, io.cwd)) : undefined,
    settings: CLI_SETTINGS,
    hooks: {
      warn: (m) => io.stderr.write(`warning: ${m}\n`),
      info: (m) => (format === 'table' ? io.stderr.write(`${m}\n`) : undefined),
      progress: io.stderr.isTTY === true ? progressLine(io.stderr) : undefined,
    },
  });
  return report(outcome.results, config, format, io, v.verbose ?? false);
}

type RunValues = ReturnType<typeof parse<typeof runOptions>>['values'];

/** `run`'s flags and the judge's keys from the environment, as the engine's Config. */
function runConfig(v: RunValues, positionals: string[], io: CliIO): Config {
  const parsed = parseInputs({
    ...judgeInputs(v, io.env),
    suites: positionals.join('\n'),
    rubric: v.rubric,
    'answers-file': v.answers,
    'fail-on': v['fail-on'],
    'gate-timeout': v['gate-timeout'],
    shard: v.shard,
    'regression-margin': v['regression-margin'],
    'effect-margin': v['effect-margin'],
    'junit-file': v.junit,
    'report-html': v.html,
    'min-pass-rate': v['min-pass-rate'],
    'budget-usd': v['budget-usd'],
    calibration: v.calibration,
    'min-judge-agreement': v['min-judge-agreement'],
    repeat: v.repeat,
    'min-case-pass-rate': v['min-case-pass-rate'],
  });
  if ('errors' in parsed) throw new UsageError(parsed.errors.join('\n'));
  const i = parsed.inputs;
  const margin = i['regression-margin'];
  const replayDir = v['judge-replay'] ? path.resolve(io.cwd, v['judge-replay']) : null;
  // A recorded judge names the endpoint and model it was recorded with (they are part of the cache key).
  const replay = replayDir ? recordedJudge(replayDir) : null;
  return configFromInputs(i, {
    workingDirectory: path.resolve(io.cwd, v.cwd ?? '.'),
    resultsFile: v.out ?? '',
    cacheDir: replayDir ?? (v['no-cache'] ? null : (i['cache-dir'] ?? defaultCacheDir(io.env))),
    cacheMode: replayDir ? 'replay' : v['no-cache'] ? 'off' : 'readwrite',
    diffFile: v.diff ?? null,
    baseRef: v.base ?? null,
    // The CLI's baseline is the file the user names (read as given, like --out), or none.
    baseline: v.baseline ? { mode: 'auto', artifact: '', margin } : { mode: 'off', margin },
    judge: replay ? { model: replay.model, baseURL: replay.base_url, apiKey: null } : {},
  });
}

/** What the markdown rubric judges from the command line: --diff, else the change since --base, else the last commit. */
function cliSubject(config: Config, cwd: string): Promise<Subject> {
  if (config.diffFile) {
    const diff = readFileSync(path.resolve(cwd, config.diffFile), 'utf8');
    return Promise.resolve(subjectFromDiff('diff', path.basename(config.diffFile), '', diff));
  }
  const dir = config.workingDirectory;
  const read = config.baseRef ? gitDiffSubject(dir, config.baseRef) : lastCommitSubject(dir);
  return read.catch((err: unknown) => {
    if (!/not a git repository/i.test(String((err as { stderr?: unknown }).stderr ?? err))) throw err;
    throw new RubricEvalError(
      `the markdown rubric judges a change, and ${path.resolve(cwd, dir)} is not in a git repository, so there is no commit to read: give the change as a unified diff with --diff <file> (for example \`git diff main > change.diff\` where the repository is), or run inside a git repository`,
    );
  });
}

/** On a terminal: one line of running counts, rewritten after every case. */
function progressLine(stderr: CliIO['stderr']): (p: Progress) => void {
  const counts = { pass: 0, borderline: 0, fail: 0, skipped: 0, inconclusive: 0 };
  return (p) => {
    counts[p.verdict === 'error' ? 'fail' : p.verdict]++;
    stderr.write(
      `\r[${p.done}/${p.total}] ${counts.pass} pass · ${counts.borderline} borderline · ${counts.fail} fail${counts.skipped ? ` · ${counts.skipped} skipped` : ''}${counts.inconclusive ? ` · ${counts.inconclusive} inconclusive` : ''}${p.done === p.total ? '\n' : ''}`,
    );
  };
}

type Format = 'table' | 'markdown' | 'json';

function parseFormat(value: string | undefined): Format {
  const format = value ?? 'table';
  if (format !== 'table' && format !== 'markdown' && format !== 'json')
    throw new UsageError(`--format must be table, markdown or json (got '${excerpt(format)}')`);
  return format;
}

/** Writes the results file, prints the report, and turns the verdict into the exit code. */
async function report(
  results: RunResults,
  config: Config,
  format: Format,
  io: CliIO,
  verbose: boolean,
): Promise<number> {
  let written: WrittenText | undefined;
  if (config.resultsFile) {
    const file = path.resolve(io.cwd, config.resultsFile);
    if (format === 'json') written = new WrittenText();
    const unwritten = writeResultsOrFallback(file, results, written);
    if (unwritten) {
      io.stderr.write(`rubric-eval: could not write the results file ${file}: ${unwritten}\n`);
      return EXIT_USAGE;
    }
  }
  if (config.junitFile) {
    // As written on the command line, like --out: relative to where the CLI runs.
    const file = path.resolve(io.cwd, config.junitFile);
    try {
      writeJunitFile(file, results, (s) => s, config.failOn);
    } catch (err) {
      io.stderr.write(`rubric-eval: could not write the JUnit file ${file}: ${(err as Error).message}\n`);
      return EXIT_USAGE;
    }
  }
  if (config.reportHtml) {
    const file = path.resolve(io.cwd, config.reportHtml);
    try {
      writeHtmlReport(file, results, { redact: (s) => s });
    } catch (err) {
      io.stderr.write(`rubric-eval: could not write the HTML report ${file}: ${(err as Error).message}\n`);
      return EXIT_USAGE;
    }
  }
  if (format === 'json') await writeResultsStream(io.stdout as NodeJS.WritableStream, results, written);
  else if (format === 'markdown') io.stdout.write(renderReport(results));
  else io.stdout.write(renderTerminal(results, styleFor(io.stdout, io.env), { verbose }));
  if (config.shard) {
    // A shard that wrote its results file has done its part: the merge decides the verdict.
    io.stderr.write(
      `${shardLabel(config.shard)}: results in ${config.resultsFile}; \`rubric-eval merge\` the shards' files for the run's verdict\n`,
    );
    return EXIT_PASS;
  }
  if (results.errors.length > 0) return EXIT_USAGE;
  return checkFailures(results, config.failOn).length > 0 ? EXIT_FAIL : EXIT_PASS;
}

/** `merge`: shard results files in, one run out, reported exactly like `run`. */
async function mergeCommand(args: string[], io: CliIO): Promise<number> {
  const { values: v, positionals } = parse(args, mergeOptions);
  if (v.help) {
    io.stdout.write(`${MERGE_HELP}\n`);
    return EXIT_PASS;
  }
  if (positionals.length === 0) throw new UsageError('merge needs the globs of the shard results files');
  const format = parseFormat(v.format);
  const parsed = parseInputs({
    merge: positionals.join('\n'),
    'fail-on': v['fail-on'],
    'junit-file': v.junit,
    'report-html': v.html,
    'min-pass-rate': v['min-pass-rate'],
  });
  if ('errors' in parsed) throw new UsageError(parsed.errors.join('\n'));
  const cwd = path.resolve(io.cwd, v.cwd ?? '.');
  const config = configFromInputs(parsed.inputs, {
    workingDirectory: cwd,
    resultsFile: v.out ?? '',
    cacheDir: null,
  });
  const outcome = await runEvaluation(config, {
    env: io.env,
    signal: io.signal,
    hooks: { warn: (m) => io.stderr.write(`warning: ${m}\n`) },
  });
  return report(outcome.results, config, format, io, v.verbose ?? false);
}

/** The recording a replayed judge answers from; a usage error when the directory holds none. */
function recordedJudge(dir: string): { base_url: string; model: string } {
  const meta = readRecordingMeta(dir);
  if (meta) return meta;
  throw new UsageError(
    `--judge-replay ${dir}: no recorded judge there (meta.json with base_url and model is missing)`,
  );
}

const validateOptions = {
  ...common,
  rubric: { type: 'string' },
  targets: { type: 'string' },
  target: { type: 'string' },
  answers: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** `run`'s pre-flight and nothing more: the same files, targets and answers, no process, no model. */
async function validateCommand(args: string[], io: CliIO): Promise<number> {
  const { values: v, positionals } = parse(args, validateOptions);
  if (v.help) {
    io.stdout.write(`${VALIDATE_HELP}\n`);
    return EXIT_PASS;
  }
  if (positionals.length === 0 && !v.rubric) throw new UsageError('validate needs suite globs or --rubric');
  const parsed = parseInputs({
    suites: positionals.join('\n'),
    rubric: v.rubric,
    targets: v.targets,
    target: v.target,
    'answers-file': v.answers,
  });
  if ('errors' in parsed) throw new UsageError(parsed.errors.join('\n'));
  const cwd = path.resolve(io.cwd, v.cwd ?? '.');
  const config = configFromInputs(parsed.inputs, { workingDirectory: cwd, resultsFile: '' });
  const r = await validateRun(config, { env: io.env, settings: CLI_SETTINGS });
  for (const d of r.diagnostics)
    (d.severity === 'error' ? io.stderr : io.stdout).write(`${formatDiagnostic(d)}\n`);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  io.stdout.write(
    errors.length > 0
      ? `${plural(errors.length, 'error')} in ${new Set(errors.map((d) => d.file)).size} file(s)\n`
      : `ok: ${plural(r.suites, 'suite')}, ${plural(r.cases, 'case')}${v.rubric ? ', 1 rubric' : ''}\n`,
  );
  return errors.length > 0 ? EXIT_USAGE : EXIT_PASS;
}

async function generateCommand(args: string[], io: CliIO): Promise<number> {
  const [what, ...rest] = args;
  if (what === '--help' || what === '-h' || what === undefined) {
    io.stdout.write(`${GENERATE_HELP}\n`);
    return what === undefined ? EXIT_USAGE : EXIT_PASS;
  }
  if (what !== 'rubrics')
    throw new UsageError(`unknown thing to generate '${excerpt(what)}' (only: rubrics)`);
  const { values: v, positionals } = parse(rest, {
    ...common,
    'dry-run': { type: 'boolean' },
    target: { type: 'string' },
    targets: { type: 'string' },
    'judge-model': { type: 'string' },
    'judge-base-url': { type: 'string' },
    'judge-timeout': { type: 'string' },
  });
  if (v.help) {
    io.stdout.write(`${GENERATE_HELP}\n`);
    return EXIT_PASS;
  }
  if (positionals.length !== 1) throw new UsageError('generate rubrics needs exactly one suite file');
  // Only this command edits YAML documents: the rest of the CLI never evaluates it.
  const { generateRubrics } = await import(/* webpackMode: "eager" */ './generate.js');
  return generateRubrics({
    suite: positionals[0]!,
    cwd: path.resolve(io.cwd, v.cwd ?? '.'),
    dryRun: v['dry-run'] ?? false,
    target: v.target ?? null,
    targets: v.targets ?? null,
    judgeModel: v['judge-model'] ?? null,
    judgeBaseURL: v['judge-base-url'] ?? null,
    timeoutMs: Number(v['judge-timeout'] ?? 120) * 1000,
    io,
  });
}
