import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type Config, configFromInputs, parseInputs } from '../config/config.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { didYouMean } from '../core/did-you-mean.js';
import { writeResultsOrFallback, writeResultsStream } from '../report/results-file.js';
import { renderReport } from '../report/markdown.js';
import { renderTerminal, styleFor } from '../report/terminal.js';
import { type RunResults } from '../core/results.js';
import { readUserBaseline } from '../baseline/load.js';
import { checkFailures } from '../config/fail-on.js';
import { createRunContext } from '../pipeline/context.js';
import { loadInputs } from '../pipeline/load.js';
import { planRun } from '../pipeline/plan.js';
import { CLI_SETTINGS } from '../core/setting-names.js';
import { runEvaluation } from '../pipeline/run.js';
import { gitDiffSubject, lastCommitSubject, type Subject, subjectFromDiff } from '../checker/subject.js';
import { generateRubrics } from './generate.js';
import { compareCommand } from './compare.js';
import packageJson from '../../package.json' with { type: 'json' };
import { type CliIO, EXIT_FAIL, EXIT_PASS, EXIT_USAGE, judgeCredentials, UsageError } from './io.js';

export { type CliIO };

// package.json is the one place the version is written; the bundle inlines it.
const VERSION = packageJson.version;

const MAIN_HELP = `rubric-eval ${VERSION}: grade AI output with rubrics, locally or in CI.

Usage:
  rubric-eval run <suite-globs...> [options]     run eval suites and/or a markdown rubric
  rubric-eval validate <suite-globs...> [options] run's checks before its first call; nothing runs
  rubric-eval merge <results-globs...> [options]  merge shard results files (run --shard i/n) into one run
  rubric-eval generate rubrics <suite> [options]  write checklist rubrics for cases that have none
  rubric-eval compare <base.json> <head.json>     what changed between two results files
  rubric-eval <command> --help                    options and examples of a command

Exit codes: 0 pass, 1 the verdict fails --fail-on, 2 invalid input or usage.`;

const RUN_HELP = `Usage: rubric-eval run <suite-globs...> [options]

Runs eval suites (AgentV v2 YAML/JSONL) and/or a markdown checker rubric, the same engine as the
GitHub Action, and prints the report.

Options:
  --rubric <file|cmd>        markdown rubric (*.md), a command (gates-only) or "agent: <criterion>"
  --targets <file>           targets.yaml (default: nearest targets.yaml or .agentv/targets.yaml)
  --target <name>            target to use for every case
  --answers <file>           JSONL of {"eval_id", "candidate_answer"} used instead of a target
  --judge-model <id>         judge model (default gpt-4.1-mini; openai/gpt-4.1-mini on GitHub Models)
  --judge-base-url <url>     any OpenAI-compatible endpoint (key: RUBRIC_EVAL_JUDGE_API_KEY or OPENAI_API_KEY;
                             with neither, GITHUB_TOKEN against GitHub Models)
  --judge-replay <dir>       answer the judge only from a recorded cache directory; no calls, no key
  --judge-timeout <s>        seconds per judge call (default 120)
  --concurrency <n>          model calls in flight (default 8)
  --judge-samples <n|auto>   judge each llm_judge evaluator n times (1-9, default 1), or auto: more
                             samples (up to 5) only where the verdict is in doubt
  --fail-on <fail|borderline|regression|never>   (default fail; regression needs --baseline)
  --baseline <file>          compare every case with this results file (the base branch's run)
  --regression-margin <x>    a score drop larger than this is a regression (default 0.1)
  --cache-dir <dir>          judge cache (default .rubric-eval-cache); --no-cache to disable
  --gate-timeout <s>         seconds per gate / code judge (default 600)
  --diff <file>              judge this unified diff as the change (markdown rubric)
  --base <ref>               judge the change since <ref> (git diff; default: the last commit)
  --cwd <dir>                working directory (default: current)
  --out <file>               write the results JSON here
  --format <table|markdown|json>   (default table)
  --shard <i/n>              run only shard i of n (round-robin over every case); needs --out;
                             exits 0 once the results file is written: \`rubric-eval merge\` decides
  -h, --help

Examples:
  rubric-eval run 'evals/**/*.yaml'
  rubric-eval run evals/qa.yaml --target local_cli --fail-on borderline --out results.json
  rubric-eval run --rubric RUBRIC.md --base origin/main
  rubric-eval run evals/qa.yaml --answers answers.jsonl --format markdown > report.md
  rubric-eval run 'evals/*.yaml' --baseline main-results.json --fail-on regression
  rubric-eval run 'evals/**/*.yaml' --shard 2/4 --out shards/2.json`;

const MERGE_HELP = `Usage: rubric-eval merge <results-globs...> [options]

Merges the results files of the shards of one run (\`run --shard i/n --out FILE\`) into the results
the unsharded run would have produced, then reports them like \`run\`. Runs no gate, target or
judge. Every shard 1..n must be there exactly once, from the same plan (same suites); otherwise
the run fails with an error naming the shard (\`shard 3/3 missing\`).

Options:
  --fail-on <fail|borderline|never>   (default fail)
  --out <file>               write the merged results JSON here
  --format <table|markdown|json>   (default table)
  --cwd <dir>                where the globs resolve (default: current)
  -h, --help

Example:
  rubric-eval merge 'shards/*.json' --out rubric-eval-results.json`;

const VALIDATE_HELP = `Usage: rubric-eval validate <suite-globs...> [options]

Everything run checks before its first call, without running anything or calling any model:
suites (every file, every problem), the rubric, code judge and prompt files, each case's target
and provider in targets.yaml, and the answers file against the cases. Prints every problem as
file:line:col rule: message. Exit 2 on any error. An unset \${{ VAR }} of a target only warns.

Options:
  --rubric <file|cmd>        markdown rubric (*.md), a command (gates-only) or "agent: <criterion>"
  --targets <file>           targets.yaml (default: nearest targets.yaml or .agentv/targets.yaml)
  --target <name>            target to use for every case
  --answers <file>           JSONL of {"eval_id", "candidate_answer"} used instead of a target
  --cwd <dir>                working directory (default: current)
  -h, --help

Example:
  rubric-eval validate 'evals/**/*.yaml' --rubric RUBRIC.md --targets evals/targets.yaml`;

const GENERATE_HELP = `Usage: rubric-eval generate rubrics <suite> [options]

For each case that has an expected_outcome and no rubrics, asks the judge model for 3-7 atomic
checklist items and writes them into the suite file. Every other line (comments included) stays
byte-identical.

Options:
  --dry-run                  print the diff instead of writing
  --target <name>            take the model from targets.yaml (an openai or azure target)
  --targets <file>           targets.yaml to read --target from
  --judge-model <id>, --judge-base-url <url>, --judge-timeout <s>
  --cwd <dir>

Example:
  rubric-eval generate rubrics evals/dataset.yaml --dry-run`;

const common = {
  cwd: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const runOptions = {
  ...common,
  rubric: { type: 'string' },
  targets: { type: 'string' },
  target: { type: 'string' },
  answers: { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-base-url': { type: 'string' },
  'judge-replay': { type: 'string' },
  'judge-timeout': { type: 'string' },
  concurrency: { type: 'string' },
  'fail-on': { type: 'string' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  'gate-timeout': { type: 'string' },
  diff: { type: 'string' },
  base: { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  'judge-samples': { type: 'string' },
  shard: { type: 'string' },
  baseline: { type: 'string' },
  'regression-margin': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const mergeOptions = {
  ...common,
  'fail-on': { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec((err as Error).message)?.[1];
    if (unknown) {
      const flags = Object.keys(options).map((o) => `--${o}`);
      const near = didYouMean(unknown.split('=')[0]!, flags);
      throw new UsageError(`unknown option '${unknown}'${near ? `: did you mean ${near}?` : ''}`);
    }
    throw new UsageError((err as Error).message, { cause: err });
  }
}

export async function runCli(io: CliIO): Promise<number> {
  const out = (s: string) => io.stdout.write(s);
  const err = (s: string) => io.stderr.write(s);
  const [command, ...rest] = io.argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        out(`${MAIN_HELP}\n`);
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
      default:
        throw new UsageError(`unknown command '${command}'`);
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
  const credentials = judgeCredentials(io.env);
  const parsed = parseInputs({
    suites: positionals.join('\n'),
    rubric: v.rubric,
    targets: v.targets,
    target: v.target,
    'answers-file': v.answers,
    'judge-model': v['judge-model'],
    'judge-base-url': v['judge-base-url'],
    'judge-api-key': credentials.apiKey,
    'github-token': credentials.githubToken,
    'judge-timeout': v['judge-timeout'],
    concurrency: v.concurrency,
    'fail-on': v['fail-on'],
    'cache-dir': v['cache-dir'],
    'gate-timeout': v['gate-timeout'],
    'judge-samples': v['judge-samples'],
    shard: v.shard,
    'regression-margin': v['regression-margin'],
  });
  if ('errors' in parsed) throw new UsageError(parsed.errors.join('\n'));
  const i = parsed.inputs;
  if (i.shard && !v.out)
    throw new UsageError(
      '--shard needs --out <file>: the shard results file is what `rubric-eval merge` reads',
    );
  const margin = i['regression-margin'];
  const cwd = path.resolve(io.cwd, v.cwd ?? '.');
  // A recorded judge names the endpoint and model it was recorded with (they are part of the cache key).
  const replay = v['judge-replay'] ? readReplayMeta(path.resolve(io.cwd, v['judge-replay'])) : null;
  const config = configFromInputs(i, {
    workingDirectory: cwd,
    resultsFile: v.out ?? '',
    cacheDir: v['judge-replay'] ? path.resolve(io.cwd, v['judge-replay']) : v['no-cache'] ? null : undefined,
    cacheMode: v['judge-replay'] ? 'replay' : v['no-cache'] ? 'off' : 'readwrite',
    diffFile: v.diff ?? null,
    baseRef: v.base ?? null,
    // The CLI's baseline is the file the user names (read as given, like --out), or none.
    baseline: v.baseline ? { mode: 'auto', artifact: '', margin } : { mode: 'off', margin },
    judge: replay ? { model: replay.model, baseURL: replay.base_url, apiKey: null } : {},
  });
  const subject = (): Promise<Subject> => {
    if (config.diffFile) {
      const diff = readFileSync(path.resolve(io.cwd, config.diffFile), 'utf8');
      return Promise.resolve(subjectFromDiff('diff', path.basename(config.diffFile), '', diff));
    }
    return config.baseRef ? gitDiffSubject(cwd, config.baseRef) : lastCommitSubject(cwd);
  };
  const tty = io.stderr.isTTY === true;
  const progressCounts = { pass: 0, borderline: 0, fail: 0 };
  if (v['judge-replay'])
    io.stderr.write(
      `rubric-eval: the judge is RECORDED: answers replayed from ${v['judge-replay']}, no model is called\n`,
    );
  const baselineFile = v.baseline;
  const outcome = await runEvaluation(config, {
    env: io.env,
    signal: io.signal,
    subject,
    baseline: baselineFile ? () => Promise.resolve(readUserBaseline(baselineFile, io.cwd)) : undefined,
    settings: CLI_SETTINGS,
    hooks: {
      warn: (m) => io.stderr.write(`warning: ${m}\n`),
      info: (m) => (format === 'table' ? io.stderr.write(`${m}\n`) : undefined),
      progress: tty
        ? (p) => {
            progressCounts[p.verdict === 'error' ? 'fail' : p.verdict]++;
            io.stderr.write(
              `\r[${p.done}/${p.total}] ${progressCounts.pass} pass · ${progressCounts.borderline} borderline · ${progressCounts.fail} fail${p.done === p.total ? '\n' : ''}`,
            );
          }
        : undefined,
    },
  });
  return report(outcome.results, config, format, io);
}

type Format = 'table' | 'markdown' | 'json';

function parseFormat(value: string | undefined): Format {
  const format = value ?? 'table';
  if (format !== 'table' && format !== 'markdown' && format !== 'json')
    throw new UsageError(`--format must be table, markdown or json (got '${format}')`);
  return format;
}

/** Writes the results file, prints the report, and turns the verdict into the exit code. */
async function report(results: RunResults, config: Config, format: Format, io: CliIO): Promise<number> {
  if (config.resultsFile) {
    const file = path.resolve(io.cwd, config.resultsFile);
    const unwritten = writeResultsOrFallback(file, results);
    if (unwritten) {
      io.stderr.write(`rubric-eval: could not write the results file ${file}: ${unwritten}\n`);
      return EXIT_USAGE;
    }
  }
  if (format === 'json') await writeResultsStream(io.stdout as NodeJS.WritableStream, results);
  else if (format === 'markdown') io.stdout.write(renderReport(results));
  else io.stdout.write(renderTerminal(results, styleFor(io.stdout, io.env)));
  if (config.shard) {
    // A shard that wrote its results file has done its part: the merge decides the verdict.
    io.stderr.write(
      `shard ${config.shard.index}/${config.shard.total}: results in ${config.resultsFile}; \`rubric-eval merge\` the shards' files for the run's verdict\n`,
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
  const parsed = parseInputs({ merge: positionals.join('\n'), 'fail-on': v['fail-on'] });
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
  return report(outcome.results, config, format, io);
}

function readReplayMeta(dir: string): { base_url: string; model: string } {
  try {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      base_url?: unknown;
      model?: unknown;
    };
    if (typeof meta.base_url === 'string' && typeof meta.model === 'string')
      return { base_url: meta.base_url, model: meta.model };
  } catch {
    /* reported below */
  }
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
  // The run's own load and plan stages, stopped before execute: nothing runs, no model is called.
  const ctx = createRunContext(config, { env: io.env, settings: CLI_SETTINGS });
  const loaded = await loadInputs(config, ctx.ws, { env: io.env, fetchRemote: false });
  const plan = planRun(loaded, config, ctx, { unsetEnv: 'warning' });
  // Validate checks files, not the keys of wherever it runs: the judge's credentials are the run's.
  // With no targets file in reach, a run may still be given one (--targets) or recorded answers.
  const r = {
    suites: plan.suites,
    diagnostics: plan.diagnostics
      .filter((d) => d.rule !== 'judge-credentials')
      .map((d) => (d.rule === 'no-targets' ? { ...d, severity: 'warning' as const } : d)),
  };
  for (const d of r.diagnostics)
    (d.severity === 'error' ? io.stderr : io.stdout).write(`${formatDiagnostic(d)}\n`);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  const cases = r.suites.reduce((n, s) => n + s.cases.length, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  io.stdout.write(
    errors.length > 0
      ? `${plural(errors.length, 'error')} in ${new Set(errors.map((d) => d.file)).size} file(s)\n`
      : `ok: ${plural(r.suites.length, 'suite')}, ${plural(cases, 'case')}${v.rubric ? ', 1 rubric' : ''}\n`,
  );
  return errors.length > 0 ? EXIT_USAGE : EXIT_PASS;
}

async function generateCommand(args: string[], io: CliIO): Promise<number> {
  const [what, ...rest] = args;
  if (what === '--help' || what === '-h' || what === undefined) {
    io.stdout.write(`${GENERATE_HELP}\n`);
    return what === undefined ? EXIT_USAGE : EXIT_PASS;
  }
  if (what !== 'rubrics') throw new UsageError(`unknown thing to generate '${what}' (only: rubrics)`);
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
