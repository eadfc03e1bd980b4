import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_EFFECT_MARGIN } from '../config/config.js';
import { type CaseValues, type PlanAnswer, planFor } from '../baseline/effect-plan.js';
import { checkBaselineResults } from '../baseline/read-results.js';
import { excerpt } from '../core/diagnostics.js';
import { withThousands } from '../core/usage.js';
import { type CliIO, EXIT_PASS, UsageError } from './io.js';
import { parseFlags } from './parse-flags.js';

const PLAN_HELP = `Usage: rubric-eval plan --baseline <results.json> [options]

How many cases (or, when the baseline repeats its cases, answers per case) a suite needs for a
true drop of --drop to read "regressed" in 80% of runs (docs/effect.md). The
spread is the baseline's: var(d) = 2 × its per-case variance (with repeats, the variance between a
case's answers). Cases are taken as independent; clusters make a suite need more. No model is called.

Options:
  --baseline <file>       a results file (the base branch's run)
  --drop <x>              the true drop to detect, 0..1 (default 0.05: 5 points)
  --effect-margin <x>     the effect's margin (default 0.05); a smaller drop has no answer
  --format <text|json>    (default text)
  -h, --help

Example:
  rubric-eval plan --baseline main-results.json --drop 0.1`;

const unit = (name: string, x: number) =>
  name === 'pass rate' ? `${Math.round(x * 1000) / 10} points` : x.toString();

function fraction(flag: string, value: string | undefined, fallback: number): number {
  const x = Number(value ?? fallback);
  if (value !== undefined && value.trim() === '')
    throw new UsageError(`${flag} must be a number from 0 to 1`);
  if (!Number.isFinite(x) || x < 0 || x > 1)
    throw new UsageError(`${flag} must be a number from 0 to 1 (got '${excerpt(value ?? '')}')`);
  return x;
}

/** The baseline's judged cases, each as its pass values and its score values (one per answer). */
function metricValues(file: string, cwd: string): { pass: CaseValues[]; score: CaseValues[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.resolve(cwd, file), 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`, { cause: err });
  }
  const checked = checkBaselineResults(raw, file);
  if ('error' in checked) throw new UsageError(checked.error);
  type RawCase = { answers?: { verdict?: unknown; score?: unknown }[] };
  const rawSuites = (raw as { suites: { cases: RawCase[] }[] }).suites;
  const pass: CaseValues[] = [];
  const score: CaseValues[] = [];
  checked.results.suites.forEach((s, si) =>
    s.cases.forEach((c, ci) => {
      if (c.verdict === 'error' || c.verdict === 'skipped' || c.advisory_only) return;
      const answers = (rawSuites[si]?.cases[ci]?.answers ?? []).filter((a) => typeof a.score === 'number');
      if (answers.length > 1) {
        pass.push(answers.map((a) => (a.verdict === 'pass' ? 1 : 0)));
        score.push(answers.map((a) => a.score as number));
      } else {
        pass.push([c.verdict === 'pass' ? 1 : 0]);
        score.push([c.score]);
      }
    }),
  );
  if (pass.length < 2) throw new UsageError(`${file}: fewer than 2 judged cases, no spread to plan from`);
  return { pass, score };
}

function answerLine(name: string, a: PlanAnswer): string {
  const spread = `var(d) = 2 × ${a.variance.toFixed(4)}`;
  if (a.by === 'none') return `  ${name}: no answer: ${a.reason} (${spread})`;
  if (a.by === 'repeats') return `  ${name}: ${a.repeats} answers per case on ${a.cases} cases (${spread})`;
  return `  ${name}: ${withThousands(a.cases)} cases (${spread})`;
}

/** `rubric-eval plan --baseline RESULTS [--drop 0.05]`: the size a suite needs to see a drop. */
export function planCommand(args: string[], io: CliIO): number {
  const { values: v, positionals } = parseFlags(args, {
    baseline: { type: 'string' },
    drop: { type: 'string' },
    'effect-margin': { type: 'string' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (v.help) {
    io.stdout.write(`${PLAN_HELP}\n`);
    return EXIT_PASS;
  }
  if (positionals.length > 0)
    throw new UsageError(`plan takes no positional arguments (got '${excerpt(positionals[0]!)}')`);
  if (!v.baseline) throw new UsageError('plan needs --baseline <results.json>');
  const format = v.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json (got '${excerpt(format)}')`);
  const drop = fraction('--drop', v.drop, 0.05);
  const margin = fraction('--effect-margin', v['effect-margin'], DEFAULT_EFFECT_MARGIN);
  const values = metricValues(v.baseline, io.cwd);
  const pass = planFor(values.pass, drop, margin);
  const score = planFor(values.score, drop, margin);
  if (format === 'json') {
    io.stdout.write(
      `${JSON.stringify({ baseline: v.baseline, drop, margin, cases: values.pass.length, pass, score }, null, 2)}\n`,
    );
    return EXIT_PASS;
  }
  io.stdout.write(
    [
      `plan: ${v.baseline}, ${values.pass.length} judged cases`,
      `to read a true drop of ${unit('pass rate', drop)} in the pass rate (${drop} in the score) as regressed 80% of the time (effect margin ${margin}):`,
      answerLine('pass rate', pass),
      answerLine('score', score),
      '',
    ].join('\n'),
  );
  return EXIT_PASS;
}
