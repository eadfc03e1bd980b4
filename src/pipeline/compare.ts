import { compareWithBaseline } from '../baseline/compare.js';
import { measureEffect } from '../baseline/effect.js';
import { DEFAULT_EFFECT_MARGIN } from '../config/config.js';
import { type BaselineFinder, loadBaseline } from '../baseline/load.js';
import { type Config } from '../config/config.js';
import { withRegressionCheck } from '../config/fail-on.js';
import { type RunResults } from '../core/results.js';
import { type Workspace } from '../core/workspace.js';

/**
 * Stage 5, compare: the aggregated results with each case compared with the baseline (README
 * "Baseline: what this pull request changed"), or with the reason there is none; the same for a merged run. A lookup that
 * fails is a warning and the run goes on as without a baseline; `fail-on: regression` then
 * judges as `fail`, and the report says so in one line.
 */
export async function compareStage(
  results: RunResults,
  config: Pick<Config, 'baseline' | 'failOn' | 'effectMargin'>,
  deps: { ws: Workspace; finder?: BaselineFinder; warn?: (m: string) => void; signal?: AbortSignal },
): Promise<RunResults> {
  // A shard is a part of a run: the merge compares the whole run, once.
  if (results.shard) return results;
  // Invalid input judged nothing: every base case would read as removed.
  if (results.errors.length > 0) return withoutBaseline(results, null);
  // A cancelled run must exit within seconds: it does not wait for a download still under way.
  if (deps.signal?.aborted) return withoutBaseline(results, null);
  const loaded = await untilAborted(loadBaseline(config.baseline, deps.ws, deps.finder), deps.signal);
  if (loaded === ABORTED) return withoutBaseline(results, null);
  if (loaded && 'results' in loaded) {
    const cases = compareWithBaseline(results, loaded.results, loaded.origin, config.baseline.margin);
    const compared = { ...cases, effect: measureEffect(cases, config.effectMargin ?? DEFAULT_EFFECT_MARGIN) };
    // Once for the run, not once per case.
    if (compared.baseline?.notice) deps.warn?.(compared.baseline.notice);
    return withRegressionCheck(compared, config.failOn);
  }
  const reason = loaded?.missing ?? 'none was asked for';
  if (loaded?.warn) deps.warn?.(`no baseline: ${reason}; the run goes on without one`);
  const warnings = loaded?.warn ? [...results.warnings, `no baseline: ${reason}`] : results.warnings;
  return withoutBaseline({ ...results, warnings }, note(reason, loaded?.warn ?? false, config.failOn));
}

function note(reason: string, warned: boolean, failOn: Config['failOn']): string | null {
  return failOn === 'regression' || failOn === 'effect'
    ? `No baseline (${reason}): fail-on ${failOn} judges this run as fail.`
    : warned
      ? `No baseline (${reason}).`
      : null;
}

/** Every case says it has no baseline (`baseline: null`), and so does the run. */
function withoutBaseline(results: RunResults, baselineNote: string | null): RunResults {
  const suites = results.suites.map((s) => ({ ...s, cases: s.cases.map((c) => ({ ...c, baseline: null })) }));
  return { ...results, suites, baseline: null, baseline_note: baselineNote };
}

const ABORTED = Symbol('aborted');

function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
