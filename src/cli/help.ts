/** The CLI's help texts: `rubric-eval --help` and each command's `--help`. */

/** The CLI's own help: its commands, and where each command's help is. */
export const mainHelp = (
  version: string,
) => `rubric-eval ${version}: grade AI output with rubrics, locally or in CI.

Usage:
  rubric-eval run <suite-globs...> [options]     run eval suites and/or a markdown rubric
  rubric-eval validate <suite-globs...> [options] run's checks before its first call; nothing runs
  rubric-eval merge <results-globs...> [options]  merge shard results files (run --shard i/n) into one run
  rubric-eval generate rubrics <suite> [options]  write checklist rubrics for cases that have none
  rubric-eval compare <base.json> <head.json>     what changed between two results files
  rubric-eval calibrate <suite-globs...> --labels <file>  how far the judge agrees with people, per check
  rubric-eval plan --baseline <results.json>      how many cases a suite needs to see a drop
  rubric-eval <command> --help                    options and examples of a command

Exit codes: 0 pass, 1 the verdict fails --fail-on, 2 invalid input or usage.`;

export const RUN_HELP = `Usage: rubric-eval run <suite-globs...> [options]

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
  --embedding-model <id>     embeddings for promptfoo similar / answer-relevance, at the judge's endpoint
                             (default text-embedding-3-small; openai/text-embedding-3-small on GitHub Models)
  --judge-replay <dir>       answer the judge only from a recorded cache directory; no calls, no key
  --judge-timeout <s>        seconds per judge call (default 120)
  --concurrency <n>          model calls in flight (default 8)
  --judge-samples <n|auto>   judge each llm_judge evaluator n times (1-9, default 1), or auto: more
                             samples (up to 7) only where the verdict is in doubt
  --repeat <n|auto>          answers per case from the target (1-20, default 1, or the suite's
                             repeat), or auto: more (up to 20) only while they cannot decide the case
  --min-case-pass-rate <x>   the pass rate a repeated case must be shown to reach (default 0.8)
  --fail-on <fail|borderline|inconclusive|regression|effect|never|calibration>   (default fail;
                             regression and effect need --baseline)
  --baseline <file>          compare every case with this results file (the base branch's run)
  --regression-margin <x>    a score drop larger than this is a regression (default 0.1)
  --effect-margin <x>        the suite's effect: a mean drop up to this is non-inferior (default 0.05)
  --calibration <file>       labels (JSONL): measure the judge per check; with --min-judge-agreement <κ>
                             a check below it is advisory (--fail-on calibration: fails instead)
  --cache-dir <dir>          judge cache (default ~/.cache/rubric-eval; on a runner
                             $RUNNER_TEMP/rubric-eval-cache); --no-cache to disable
  --gate-timeout <s>         seconds per gate / code judge (default 600)
  --diff <file>              judge this unified diff as the change (markdown rubric)
  --base <ref>               judge the change since <ref> (git diff; default: the last commit)
  --cwd <dir>                working directory (default: current)
  --out <file>               write the results JSON here
  --format <table|markdown|json>   (default table)
  --verbose                  list every case in the table (default: failures first, passes folded)
  --junit <file>             also write a JUnit XML report here
  --html <file>              also write a self-contained HTML report here (every case, answers, reasons)
  --min-pass-rate <x>        pass when at least this share of cases pass (0-1 or 95%), per suite
                             and overall; a single failing case no longer fails the run by itself
  --budget-usd <x>           estimated spend cap (judge and targets); cases not started once it is
                             reached are skipped, and the run fails
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

export const MERGE_HELP = `Usage: rubric-eval merge <results-globs...> [options]

Merges the results files of the shards of one run (\`run --shard i/n --out FILE\`) into the results
the unsharded run would have produced, then reports them like \`run\`. Runs no gate, target or
judge. Every shard 1..n must be there exactly once, from the same plan (same suites); otherwise
the run fails with an error naming the shard (\`shard 3/3 missing\`).

Options:
  --fail-on <fail|borderline|inconclusive|never>   (default fail)
  --out <file>               write the merged results JSON here
  --format <table|markdown|json>   (default table)
  --verbose                  list every case in the table
  --junit <file>             also write a JUnit XML report here
  --html <file>              also write a self-contained HTML report here (every case, answers, reasons)
  --min-pass-rate <x>        pass when at least this share of cases pass, per suite and overall
  --cwd <dir>                where the globs resolve (default: current)
  -h, --help

Example:
  rubric-eval merge 'shards/*.json' --out rubric-eval-results.json`;

export const VALIDATE_HELP = `Usage: rubric-eval validate <suite-globs...> [options]

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

export const GENERATE_HELP = `Usage: rubric-eval generate rubrics <suite> [options]

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
