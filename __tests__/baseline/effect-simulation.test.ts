import { detectableDrop, effectVerdict, interval, pairedSpread } from '../../src/baseline/effect-stats.js';
import { mulberry32 } from '../../src/core/seeded-random.js';

/**
 * docs/effect.md checked on simulations with known truth. Each run draws a suite of n cases (in G
 * clusters, or none) from a population, answers it on the base and on the head, and measures the
 * effect as the action does. The true effect is the population's mean difference, known from the
 * model. Seeded: the figures are the same on every machine. `EFFECT_SIM_SCALE=4` runs four times
 * as many runs per setting (the figures in the docs were taken so).
 */
const SCALE = Number(process.env.EFFECT_SIM_SCALE ?? 1);
const MARGIN = 0.05;

type Metric = 'pass' | 'score';
interface Setting {
  n: number;
  /** 0: every case its own cluster. */
  clusters: number;
  metric: Metric;
  /** `stable`: most cases always pass or always fail (few flips); `spread`: abilities across 0.2..0.8. */
  population: 'stable' | 'spread';
  /** The true drop in the mean (0: no change). */
  drop: number;
}

/** Mean of a case's probability in each population (the truth scales with it). */
const POPULATION_MEAN = { stable: 0.8 * 0.98 + 0.2 * 0.02, spread: 0.5 };

interface Run {
  diffs: Float64Array;
  clusters: Int32Array;
  groups: number;
  base: number;
}

/**
 * One run: the per-case differences (head − base) and clusters. Head probabilities are the base's
 * times (1 − ρ_g), ρ_g averaging ρ = drop / mean; with clusters each cluster has its own ρ_g
 * (uniform on 0..2ρ), its own ability level and its own shock on each side, so that its cases
 * move together. A score is the share of 4 rubric items met, a pass one verdict.
 */
function oneRun(s: Setting, rand: () => number): Run {
  const rho = s.drop / POPULATION_MEAN[s.population];
  const g = s.clusters || s.n;
  const level = new Float64Array(g);
  const rhoOf = new Float64Array(g);
  const baseShock = new Float64Array(g);
  const headShock = new Float64Array(g);
  for (let c = 0; c < g; c++) {
    level[c] = rand();
    rhoOf[c] = s.clusters ? 2 * rho * rand() : rho;
    baseShock[c] = s.clusters ? (rand() - 0.5) * 0.3 : 0;
    headShock[c] = s.clusters ? (rand() - 0.5) * 0.3 : 0;
  }
  const trials = s.metric === 'score' ? 4 : 1;
  const diffs = new Float64Array(s.n);
  const clusters = new Int32Array(s.n);
  let base = 0;
  for (let i = 0; i < s.n; i++) {
    // Cluster sizes vary: past the first case of each, a case joins a cluster at random.
    const c = i < g ? i : Math.floor(rand() * g);
    const mu =
      s.population === 'stable'
        ? rand() < 0.8
          ? 0.98
          : 0.02
        : 0.2 + 0.6 * (s.clusters ? (level[c]! + rand()) / 2 : rand());
    const p = mu + baseShock[c]!;
    const q = (mu + headShock[c]!) * (1 - rhoOf[c]!);
    let b = 0;
    let h = 0;
    for (let t = 0; t < trials; t++) {
      if (rand() < p) b++;
      if (rand() < q) h++;
    }
    base += b / trials;
    diffs[i] = (h - b) / trials;
    clusters[i] = c;
  }
  return { diffs, clusters, groups: g, base: base / s.n };
}

interface Tally {
  runs: number;
  covered: number;
  regressed: number;
  mdes: number[];
}

function simulate(s: Setting, runs: number, seed: number): Tally {
  const rand = mulberry32(seed);
  const t: Tally = { runs, covered: 0, regressed: 0, mdes: [] };
  for (let r = 0; r < runs; r++) {
    const run = oneRun(s, rand);
    const spread = pairedSpread(run.diffs, run.clusters, run.groups);
    const { low, high } = interval(spread);
    if (low <= -s.drop && -s.drop <= high) t.covered++;
    if (effectVerdict(low, high, MARGIN) === 'regressed') t.regressed++;
    t.mdes.push(detectableDrop(spread, MARGIN, run.base) ?? Infinity);
  }
  return t;
}

const p75 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(0.75 * (values.length - 1))]!;

/** Runs per setting: fewer where each costs more (a run of 2,000 cases costs 200 of 10). */
const runsFor = (n: number, settings: number) =>
  Math.round((SCALE * (n <= 30 ? 1200 : n <= 100 ? 800 : n <= 500 ? 400 : 200)) / settings);

const NS = [10, 30, 100, 500, 2000];
const figures: string[] = [];
afterAll(() => {
  if (process.env.EFFECT_SIM_PRINT) console.log(figures.join('\n'));
});

/** Every setting at one n: both metrics, both populations (or 5 and 20 clusters), no change and a drop. */
function settingsAt(n: number, clustered: boolean): Setting[] {
  const out: Setting[] = [];
  for (const metric of ['pass', 'score'] as const)
    for (const drop of [0, 0.1])
      if (!clustered)
        for (const population of ['stable', 'spread'] as const)
          out.push({ n, clusters: 0, metric, population, drop });
      else
        for (const clusters of n >= 40 ? [5, 20] : [5])
          out.push({ n, clusters, metric, population: 'spread', drop });
  return out;
}

describe('effect interval: coverage of the true mean difference', () => {
  for (const clustered of [false, true])
    it.each(NS)(
      `is at least 93% at n %i, ${clustered ? 'with 5 or 20 clusters' : 'without clusters'}`,
      (n) => {
        const settings = settingsAt(n, clustered);
        let covered = 0;
        let runs = 0;
        settings.forEach((s, k) => {
          const t = simulate(s, runsFor(n, settings.length), 1000 * n + 100 * Number(clustered) + k);
          covered += t.covered;
          runs += t.runs;
        });
        const coverage = covered / runs;
        figures.push(
          `coverage\t${clustered ? 'clusters' : 'none'}\t${n}\t${coverage.toFixed(3)}\t${runs} runs`,
        );
        expect(coverage).toBeGreaterThanOrEqual(0.93);
      },
    );
});

describe('effect verdict: no true change reads regressed in at most 5% of runs', () => {
  it.each([
    { n: 10, clusters: 0, metric: 'pass' as Metric },
    { n: 100, clusters: 0, metric: 'pass' as Metric },
    { n: 100, clusters: 5, metric: 'score' as Metric },
    { n: 500, clusters: 0, metric: 'score' as Metric },
    { n: 2000, clusters: 20, metric: 'pass' as Metric },
  ])('n $n, clusters $clusters, $metric', ({ n, clusters, metric }) => {
    const t = simulate({ n, clusters, metric, population: 'spread', drop: 0 }, runsFor(n, 2), 77 + n);
    const rate = t.regressed / t.runs;
    figures.push(`false regressed\t${metric}\t${clusters}\t${n}\t${rate.toFixed(3)}\t${t.runs} runs`);
    expect(rate).toBeLessThanOrEqual(0.05);
  });
});

describe('effect mde: a true drop at the 75th percentile of the stated mde reads regressed in at least 75% of runs', () => {
  it.each([
    { n: 30, clusters: 0, metric: 'pass' as Metric, population: 'spread' as const },
    { n: 100, clusters: 0, metric: 'pass' as Metric, population: 'stable' as const },
    { n: 200, clusters: 0, metric: 'score' as Metric, population: 'spread' as const },
    { n: 500, clusters: 20, metric: 'pass' as Metric, population: 'spread' as const },
    { n: 1000, clusters: 0, metric: 'pass' as Metric, population: 'spread' as const },
  ])('n $n, clusters $clusters, $metric, $population', ({ n, clusters, metric, population }) => {
    const runs = runsFor(n, 3);
    // The mde stated under a drop depends on the drop: iterate to the drop whose own p75 mde it is.
    let drop = p75(simulate({ n, clusters, metric, population, drop: 0 }, runs, 5).mdes);
    for (let k = 0; k < 2; k++)
      drop = p75(simulate({ n, clusters, metric, population, drop }, runs, 6 + k).mdes);
    expect(drop).toBeLessThan(Infinity);
    // The power itself on more runs than the search for the drop.
    const t = simulate({ n, clusters, metric, population, drop }, runsFor(n, 1), 9);
    const power = t.regressed / t.runs;
    figures.push(
      `power at p75 mde\t${metric}\t${clusters}\t${n}\tmde ${drop.toFixed(3)}\t${power.toFixed(3)}\t${t.runs} runs`,
    );
    expect(power).toBeGreaterThanOrEqual(0.75);
  });
});
