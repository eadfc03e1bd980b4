import { type BaselineFinder } from '../baseline/load.js';
import { type LabelsReader } from '../calibration/stage.js';
import { type Subject } from '../checker/subject.js';
import { type HistoryEntry, type TrustedInfo } from '../core/results.js';
import { type SettingNames } from '../core/setting-names.js';
import { type Progress } from './execute.js';
import { type HeadFiles } from './head-cases.js';
import { type RecordBundle } from './record-bundle.js';

// What an adapter hands the engine's stages (a run, a merge, the record and the judge stage): below
// them all, so the stage that wires them and the stages it calls share it without a loop.

interface RunHooks {
  info?(message: string): void;
  warn?(message: string): void;
  /** A secret learnt during the run (a template's value): the action masks it in the log. */
  mask?(secret: string): void;
  progress?(p: Progress): void;
  phase?<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

export interface RunIO {
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** What the markdown rubric judges: the PR (GitHub API), a git diff, the last commit. */
  subject?: () => Promise<Subject>;
  /**
   * Earlier runs on this pull request, oldest first (from the sticky comment). A promise when the
   * adapter's lookup runs beside the load and the cases: read only where it is used.
   */
  history?: HistoryEntry[] | Promise<HistoryEntry[]>;
  commit?: string | null;
  /** How the adapter finds the baseline for `baseline: auto` (the action: the base branch's artifact). */
  baseline?: BaselineFinder;
  hooks?: RunHooks;
  /** How the user sets the judge's URL and keys (action inputs unless the CLI says otherwise). */
  settings?: SettingNames;
  /** Where the labels that gate are read (the action on a PR: its base commit); default the working tree. */
  calibrationLabels?: LabelsReader;
  /** `stage: judge`: the pull request's recorded answers and gates, judged instead of run. */
  recorded?: RecordedInput;
}

/** What the judge stage judges: a checked bundle, and the run GitHub says uploaded it. */
export interface RecordedInput {
  bundle: RecordBundle;
  run: TrustedInfo['record_run'];
  /** How many shard jobs recorded it (their bundles merged); 1 for one job. */
  shards?: number;
  /** Files the pull request changes among those that decide the grade (suites, the rubric). */
  changedFiles?: string[];
  /** Whether the pull request changes a file (a path as the run names it); absent: not known. */
  changes?: (file: string) => boolean;
  /** The head's suite files, read as data: model-only targets are then answered here. */
  headFiles?: HeadFiles;
}
