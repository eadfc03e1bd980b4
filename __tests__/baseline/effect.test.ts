import { measureEffect } from '../../src/baseline/effect.js';
import { effectLine, effectLines } from '../../src/core/effect-line.js';
import { compareWithBaseline } from '../../src/baseline/compare.js';
import { type BaselineResults } from '../../src/baseline/read-results.js';
import { type CaseResult, type RunResults } from '../../src/core/results.js';
import { resultsOf } from '../helpers/results.js';
import { DEFINITION_VERSION } from '../../src/suite/definition-hash.js';

type Side = { id: string; verdict: CaseResult['verdict']; score: number; hash?: string; cluster?: string };

function head(cases: Side[], suite = 'evals/qa.yaml'): RunResults {
  const r = resultsOf(cases.map((c) => [suite, c.id, c.verdict, c.score, c.hash ?? 'aaaaaaaaaaaaaaaa']));
  r.suites[0]!.cases.forEach((c, i) => {
    if (cases[i]!.cluster) c.cluster = cases[i]!.cluster;
  });
  return r;
}

function base(cases: Side[], suite = 'evals/qa.yaml'): BaselineResults {
  return {
    partial: false,
    commit: null,
    definitionVersion: DEFINITION_VERSION,
    suites: [
      {
        path: suite,
        cases: cases.map((c) => ({
          id: c.id,
          verdict: c.verdict,
          score: c.score,
          definition_hash: c.hash ?? 'aaaaaaaaaaaaaaaa',
        })),
      },
    ],
  };
}

const origin = {
  source: 'file' as const,
  commit: null,
  run_id: null,
  run_url: null,
  artifact_id: null,
  created_at: null,
  file: 'base.json',
};
const cases = (n: number, f: (i: number) => Partial<Side>): Side[] =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, verdict: 'pass' as const, score: 1, ...f(i) }));
const effectOf = (b: Side[], h: Side[], margin = 0.05) =>
  measureEffect(compareWithBaseline(head(h), base(b), origin, 0.1), margin);

describe('measureEffect', () => {
  it('is null without a baseline, and states nothing under 10 paired cases', () => {
    expect(measureEffect(head(cases(20, () => ({}))), 0.05)).toBeNull();
    const few = effectOf(
      cases(9, () => ({})),
      cases(9, () => ({})),
    )!;
    expect(few).toEqual({ margin: 0.05, paired: 9, overall: [], suites: [] });
    expect(effectLines(few)).toEqual(['effect: not stated, 9 cases judged on both sides (10 needed)']);
  });

  it('pairs only cases judged on both sides with the same definition', () => {
    const b = cases(13, (i) =>
      i === 0 ? { verdict: 'error', score: 0 } : i === 1 ? { hash: 'bbbbbbbbbbbbbbbb' } : {},
    );
    const h = [
      ...cases(13, (i) =>
        i === 2 ? { verdict: 'skipped', score: 0 } : i === 3 ? { verdict: 'fail', score: 0.2 } : {},
      ),
      { id: 'new', verdict: 'fail' as const, score: 0 },
    ];
    const e = effectOf(b, h)!;
    // c0 errored on the base, c1 redefined, c2 skipped on the head, `new` has no base: 10 paired.
    expect(e.paired).toBe(10);
    const pass = e.overall.find((r) => r.metric === 'pass')!;
    expect(pass).toMatchObject({ n: 10, clusters: 10, base_mean: 1, head_mean: 0.9, delta: -0.1 });
    const score = e.overall.find((r) => r.metric === 'score')!;
    expect(score).toMatchObject({ base_mean: 1, head_mean: 0.92, delta: -0.08 });
    expect(e.suites).toEqual([{ path: 'evals/qa.yaml', rows: e.overall }]);
  });

  it('counts clusters per suite file; a case without one is its own', () => {
    const h = cases(12, (i) => (i < 8 ? { cluster: `k${i % 2}` } : {}));
    const e = effectOf(
      cases(12, () => ({})),
      h,
    )!;
    expect(e.overall[0]!.clusters).toBe(2 + 4);
  });

  it('is the same on a re-run, and rounds to 4 decimals', () => {
    const b = cases(30, (i) => ({ score: (i % 7) / 7 }));
    const h = cases(30, (i) => ({ score: ((i * 3) % 7) / 7, verdict: i % 4 ? 'pass' : 'fail' }));
    const once = effectOf(b, h);
    expect(effectOf(b, h)).toEqual(once);
    for (const r of once!.overall)
      for (const x of [r.delta, r.delta_low, r.delta_high]) expect(x).toBe(Math.round(x * 1e4) / 1e4);
  });

  it('uses the pass rates of repeated cases', () => {
    const b = cases(10, () => ({}));
    const compared = compareWithBaseline(head(cases(10, () => ({}))), base(b), origin, 0.1);
    for (const c of compared.suites[0]!.cases) Object.assign(c, { repeats: 4, pass_rate: 0.5 });
    const pass = measureEffect(compared, 0.05)!.overall.find((r) => r.metric === 'pass')!;
    expect(pass.head_mean).toBe(0.5);
  });
});

describe('effectLine', () => {
  const row = {
    metric: 'pass' as const,
    n: 100,
    clusters: 100,
    base_mean: 0.82,
    head_mean: 0.74,
    delta: -0.08,
    delta_low: -0.13,
    delta_high: -0.03,
    mde: 0.09,
    margin: 0.05,
    verdict: 'regressed' as const,
    method: 'm',
  };
  it('reads as docs/effect.md shows it, with the mde', () => {
    expect(effectLine(row)).toBe(
      'pass rate 82% → 74% (−8 points, 95% CI −13 to −3): regressed; this suite detects drops of 9 points or more',
    );
    expect(effectLine({ ...row, metric: 'score', mde: null, clusters: 4, n: 12 })).toBe(
      'score 0.82 → 0.74 (−0.08, 95% CI −0.13 to −0.03): regressed; with 12 cases in 4 clusters this suite cannot detect a drop',
    );
  });
});
