import path from 'node:path';
import { type Config } from '../config/config.js';
import { DiagnosticSink, formatDiagnostic } from '../core/diagnostics.js';
import { addUsage, type SuiteResult } from '../core/results.js';
import { readUserFile } from '../core/user-file.js';
import { type Workspace } from '../core/workspace.js';
import { type EvalSuite } from '../suite/types.js';
import { DEFAULT_MIN_CASE_PASS_RATE, type RepeatRule, type RepeatSetting } from '../core/repeat-setting.js';
import { applyAdvisory, belowFloor } from './advisory.js';
import { type MatchedLabel, matchLabels, parseLabels } from './labels.js';
import { measureJudge, type MeasureDeps } from './measure.js';
import { RubricEvalError } from '../core/errors.js';
import { type CalibrationResults } from '../core/calibration-results.js';

/** The labels file's text at one place; `text` null when the file is not there. */
export interface LabelsAt {
  text: string | null;
  /** Where it was read, for the report: `base <sha>`, `working tree`. */
  from: string;
  /** Why this file is shown but not measured (the judge stage's cap on a PR's new labels). */
  refused?: string;
}

/**
 * The labels that gate, and those the pull request proposes (its head, shown "after merge" and
 * never gating); `proposed` is null outside a pull request or when the PR leaves the file alone.
 */
interface LabelsSources {
  gating: LabelsAt;
  proposed: LabelsAt | null;
}

/** How the adapter reads the labels file (the action: the PR's base commit); default: the working tree. */
export type LabelsReader = (file: string) => Promise<LabelsSources>;

/** The labels read and matched to the loaded suites, before anything is judged. */
export interface CalibrationPlan {
  file: string;
  floor: number | null;
  effect: CalibrationResults['effect'];
  source: string;
  gating: MatchedLabel[];
  /** The PR's labels: matched, or why they cannot be used. */
  proposed: { matched: MatchedLabel[] } | { error: string } | null;
  /** Problems in the gating labels: invalid input, the run fails. */
  errors: string[];
}

/** The working tree's labels file, as the CLI and a push run read it. */
export function workingTreeLabels(ws: Workspace): LabelsReader {
  return (file) => {
    const sink = new DiagnosticSink(file);
    const text = readUserFile(path.resolve(ws.root, file), ws, 'calibration', sink);
    if (text === undefined)
      return Promise.reject(new RubricEvalError(sink.items.map(formatDiagnostic).join('; ')));
    return Promise.resolve({ gating: { text, from: 'working tree' }, proposed: null });
  };
}

function readAndMatch(text: string, file: string, plan: { suites: readonly EvalSuite[] }) {
  const parsed = parseLabels(text, file);
  const m = matchLabels(parsed.lines, plan.suites, file);
  const problems = [...parsed.diagnostics, ...m.diagnostics].filter((d) => d.severity === 'error');
  return { matched: m.matched, errors: problems.map(formatDiagnostic) };
}

/**
 * Reads the labels (those that gate from where the adapter says: a PR's base, never its head)
 * and matches them to the suites. An unreadable or invalid gating file is invalid input.
 */
export async function planCalibration(
  config: Pick<Config, 'calibration' | 'failOn'>,
  plan: { suites: readonly EvalSuite[] },
  read: LabelsReader,
): Promise<CalibrationPlan | null> {
  const cal = config.calibration;
  if (!cal) return null;
  const base = {
    file: cal.file,
    floor: cal.floor,
    effect: config.failOn === 'calibration' ? ('fails' as const) : ('advisory' as const),
  };
  let sources: LabelsSources;
  try {
    sources = await read(cal.file);
  } catch (err) {
    return {
      ...base,
      source: 'unread',
      gating: [],
      proposed: null,
      errors: [`calibration: ${(err as Error).message}`],
    };
  }
  const gating =
    sources.gating.text === null
      ? { matched: [], errors: [] }
      : readAndMatch(sources.gating.text, cal.file, plan);
  let proposed: CalibrationPlan['proposed'] = null;
  if (sources.proposed && sources.proposed.text !== sources.gating.text) {
    if (sources.proposed.refused) proposed = { error: sources.proposed.refused };
    else if (sources.proposed.text === null) proposed = { error: 'the pull request deletes the labels file' };
    else {
      const p = readAndMatch(sources.proposed.text, cal.file, plan);
      proposed = p.errors.length ? { error: p.errors.join('; ') } : { matched: p.matched };
    }
  }
  const source =
    sources.gating.text === null ? `${sources.gating.from} (no labels file there)` : sources.gating.from;
  return { ...base, source, gating: gating.matched, proposed, errors: gating.errors };
}

/** Judges the labelled answers (cached like any judge call) and measures agreement per check. */
export async function measureCalibration(
  cp: CalibrationPlan,
  deps: MeasureDeps,
): Promise<CalibrationResults> {
  const gating = await measureJudge(cp.gating, deps);
  const proposed =
    cp.proposed && 'matched' in cp.proposed ? await measureJudge(cp.proposed.matched, deps) : null;
  const results: CalibrationResults = {
    file: cp.file,
    source: cp.source,
    labels: gating.labels,
    floor: cp.floor,
    overall: gating.overall,
    rows: gating.rows,
    below_floor: belowFloor(gating.rows, cp.floor),
    effect: cp.effect,
    errors: gating.errors,
    usage: proposed ? addUsage(gating.usage, proposed.usage) : gating.usage,
    after_merge: proposed
      ? {
          labels: proposed.labels,
          overall: proposed.overall,
          rows: proposed.rows,
          below_floor: belowFloor(proposed.rows, cp.floor),
        }
      : null,
  };
  if (cp.proposed && 'error' in cp.proposed) results.after_merge_error = cp.proposed.error;
  return results;
}

/** The executed suites with checks below the floor made advisory (unless they fail the check instead). */
export function withCalibration(
  suites: readonly SuiteResult[],
  plan: {
    suites: readonly EvalSuite[];
    cases: readonly {
      suite: { path: string };
      evalCase: { id: string };
      repeat?: RepeatSetting;
      minCasePassRate?: number;
    }[];
  },
  calibration: CalibrationResults | null,
): SuiteResult[] {
  if (!calibration || calibration.effect !== 'advisory') return [...suites];
  // A repeated case is decided again by the rule its plan asked of it.
  const rule = (suite: string, id: string): RepeatRule => {
    const planned = plan.cases.find((p) => p.suite.path === suite && p.evalCase.id === id);
    return {
      setting: planned?.repeat ?? 1,
      minRate: planned?.minCasePassRate ?? DEFAULT_MIN_CASE_PASS_RATE,
    };
  };
  return applyAdvisory(suites, plan.suites, calibration.below_floor, rule);
}
