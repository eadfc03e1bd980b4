import { renderReport } from '../../src/report/comment-body.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { compareStage } from '../../src/pipeline/compare.js';
import { type BaselineConfig } from '../../src/config/config.js';
import { Workspace } from '../../src/core/workspace.js';
import { tmpDir } from '../helpers/judge.js';
import { resultsOf, type Row } from '../helpers/results.js';

const HEAD: Row[] = [
  ['a.yaml', 'x', 'fail', 0.2, 'h'],
  ['a.yaml', 'y', 'pass', 1, 'h'],
];

function setup(files: Record<string, string> = {}) {
  const root = tmpDir('re-compare-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
  const warnings: string[] = [];
  return { ws: new Workspace(root), warn: (m: string) => warnings.push(m), warnings };
}

const cfg = (baseline: BaselineConfig, failOn: 'fail' | 'regression' = 'fail') => ({ baseline, failOn });

describe('compare stage', () => {
  test('baseline off: the results come back with no baseline, no note, no warning', async () => {
    const d = setup();
    const r = await compareStage(resultsOf(HEAD), cfg({ mode: 'off', margin: 0.1 }), d);
    expect(r.baseline).toBeNull();
    expect(r.baseline_note).toBeNull();
    // Each case says so too; nothing else about it changes.
    expect(r.suites.flatMap((x) => x.cases.map((c) => c.baseline))).toEqual([null, null]);
    expect(r.suites.flatMap((x) => x.cases.map(({ baseline: _b, ...c }) => c))).toEqual(
      resultsOf(HEAD).suites.flatMap((x) => x.cases),
    );
    expect(d.warnings).toEqual([]);
  });

  test('a results file inside the workspace is compared with', async () => {
    const base = JSON.stringify(resultsOf([['a.yaml', 'x', 'fail', 0.2, 'h']]));
    const d = setup({ 'main.json': base });
    const r = await compareStage(resultsOf(HEAD), cfg({ mode: 'file', path: 'main.json', margin: 0.1 }), d);
    expect(r.suites[0]!.cases.map((c) => c.baseline?.change)).toEqual(['same', 'new']);
    expect(r.baseline).toMatchObject({ source: 'file', file: 'main.json', changes: { same: 1, new: 1 } });
    // The checkout's own file, whatever commit its history claims: labelled as the PR's.
    expect(r.baseline!.in_checkout).toBe(true);
    const claimed = JSON.stringify({ ...JSON.parse(base), history: [{ commit: 'abcdef1234567' }] });
    const d2 = setup({ 'main.json': claimed });
    const r2 = await compareStage(resultsOf(HEAD), cfg({ mode: 'file', path: 'main.json', margin: 0.1 }), d2);
    const line = renderReport(r2)
      .split('\n')
      .find((l) => l.startsWith('vs '));
    expect(line).toBe('vs file in this PR `main.json`: 1 still failing · 1 new');
  });

  test('a file outside the workspace, a missing one, or one of another version: a warning, and no baseline', async () => {
    const d = setup({ 'v2.json': '{"version": 2, "suites": []}' });
    for (const file of ['../outside.json', 'nope.json', 'v2.json']) {
      const r = await compareStage(resultsOf(HEAD), cfg({ mode: 'file', path: file, margin: 0.1 }), d);
      expect(r.baseline).toBeNull();
      expect(r.baseline_note).toMatch(/^No baseline \(/);
    }
    expect(d.warnings).toEqual([
      'no baseline: baseline file ../outside.json resolves outside the workspace; the run goes on without one',
      'no baseline: baseline file nope.json not found; the run goes on without one',
      'no baseline: v2.json has results version 2; this rubric-eval compares with version 1 only; the run goes on without one',
    ]);
  });

  test('auto outside a pull request is quiet, unless fail-on regression needs saying', async () => {
    const d = setup();
    const auto: BaselineConfig = { mode: 'auto', artifact: 'rubric-eval-results', margin: 0.1 };
    expect((await compareStage(resultsOf(HEAD), cfg(auto), d)).baseline_note).toBeNull();
    expect((await compareStage(resultsOf(HEAD), cfg(auto, 'regression'), d)).baseline_note).toBe(
      'No baseline (nothing to compare with outside a pull request): fail-on regression judges this run as fail.',
    );
    expect(d.warnings).toEqual([]);
  });

  test("the adapter's finder: its warning is passed on; a finder that throws is a warning too", async () => {
    const d = setup();
    const auto: BaselineConfig = { mode: 'auto', artifact: 'rubric-eval-results', margin: 0.1 };
    const r = await compareStage(resultsOf(HEAD), cfg(auto), {
      ...d,
      finder: () => Promise.resolve({ warning: 'GitHub refused it (HTTP 403)' }),
    });
    expect(r.warnings).toEqual(['no baseline: GitHub refused it (HTTP 403)']);
    expect(r.baseline_note).toBe('No baseline (GitHub refused it (HTTP 403)).');
    await compareStage(resultsOf(HEAD), cfg(auto), { ...d, finder: () => Promise.reject(new Error('boom')) });
    expect(d.warnings.at(-1)).toBe(
      'no baseline: the baseline could not be found (boom); the run goes on without one',
    );
  });

  test('a cancelled run does not wait for a lookup still under way', async () => {
    const d = setup();
    const controller = new AbortController();
    const auto: BaselineConfig = { mode: 'auto', artifact: 'rubric-eval-results', margin: 0.1 };
    const pending = compareStage(resultsOf(HEAD, { partial: true }), cfg(auto), {
      ...d,
      finder: () => new Promise(() => undefined),
      signal: controller.signal,
    });
    controller.abort();
    const r = await pending;
    expect(r.baseline).toBeNull();
    expect(r.partial).toBe(true);
  });

  test('invalid input is not compared: every base case would read as removed', async () => {
    const d = setup({ 'main.json': JSON.stringify(resultsOf(HEAD)) });
    const r = await compareStage(
      resultsOf([], { errors: ['a.yaml:1:1 bounds: bad'] }),
      cfg({ mode: 'file', path: 'main.json', margin: 0.1 }),
      d,
    );
    expect(r.baseline).toBeNull();
  });
});
