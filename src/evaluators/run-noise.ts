import {
  binomial,
  CERTAIN,
  type ItemVotes,
  levelWeights,
  type NoiseModel,
  NOISY_SHARES,
  PRIOR_NOISE,
} from './verdict-posterior.js';

/**
 * The judge's noise, learnt from a whole run (`judge-samples: auto`, the run's part). One case's
 * votes cannot tell a judge that slips 10% on each of its five items from a certain one: after
 * one sample both say "yes" five times. A run holds many cases judged by the same judge, and the
 * items the cases sampled again show how often it slips, how many items are truly met and how
 * many cases are noisy throughout. Empirical Bayes: the prior's figures (`verdict-posterior.ts`)
 * are fitted to every checklist vote of the run by expectation-maximisation, a fixed number of
 * rounds from the prior, so the fit depends on the votes alone. Sampling more where votes looked
 * doubtful does not bias it: which items were sampled again depends only on votes it sees.
 */

const ROUNDS = 30;
/**
 * The prior counts as this many items (met share, slip rate) and evaluators (levels), so a run
 * of a few cases moves it little: four cases whose items were all met must not teach that five
 * misses are likely slips.
 */
const PRIOR_ITEMS = 20;
const PRIOR_EVALUATORS = 4;
const PRIOR_SLIP = 0.1;
/** Bounds that keep every level and class possible whatever one run's votes say. */
const SLIP = { low: 0.02, high: 0.35 };
const SHARE = { low: 0.05, high: 0.95 };
const LEVEL_FLOOR = 0.02;

const clamp = (x: number, b: { low: number; high: number }) => Math.min(b.high, Math.max(b.low, x));

/** Expected counts of one round, summed over the run's items. */
interface Tally {
  level: number[];
  met: number;
  items: number;
  slips: number;
  noisyVotes: number;
}

function tallyEvaluator(items: readonly ItemVotes[], m: NoiseModel, slip: number, t: Tally): void {
  const w = levelWeights(items, m);
  w.forEach((x, l) => (t.level[l]! += x));
  for (const v of items)
    NOISY_SHARES.forEach((share, l) => {
      // The item's class: certain and met, certain and not, noisy and met, noisy and not.
      const cls = [
        (1 - share) * m.metShare * binomial(CERTAIN, v.yes, v.total),
        (1 - share) * (1 - m.metShare) * binomial(1 - CERTAIN, v.yes, v.total),
        share * m.metShare * binomial(1 - slip, v.yes, v.total),
        share * (1 - m.metShare) * binomial(slip, v.yes, v.total),
      ];
      const total = cls.reduce((a, b) => a + b, 0);
      if (total <= 0) return;
      const [cm, , nm, nu] = cls.map((x) => (w[l]! * x) / total) as [number, number, number, number];
      t.met += cm + nm;
      t.items += w[l]!;
      t.slips += nm * (v.total - v.yes) + nu * v.yes;
      t.noisyVotes += (nm + nu) * v.total;
    });
}

/**
 * The noise model fitted to a run's checklist evaluators (each its items' votes). The prior as
 * it is when no item was sampled twice: one vote per item cannot tell a slip from the truth.
 */
export function fitRunNoise(evaluators: readonly (readonly ItemVotes[])[]): NoiseModel {
  const sets = evaluators.filter((items) => items.length > 0);
  if (!sets.some((items) => items.some((v) => v.total >= 2))) return PRIOR_NOISE;
  let slip = 0.1;
  let m: NoiseModel = { ...PRIOR_NOISE, noisyRight: [1 - slip] };
  for (let round = 0; round < ROUNDS; round++) {
    const t: Tally = { level: NOISY_SHARES.map(() => 0), met: 0, items: 0, slips: 0, noisyVotes: 0 };
    for (const items of sets) tallyEvaluator(items, m, slip, t);
    const levels = t.level.reduce((a, b) => a + b, 0) + PRIOR_EVALUATORS;
    slip = clamp((t.slips + PRIOR_ITEMS * PRIOR_SLIP) / (t.noisyVotes + PRIOR_ITEMS), SLIP);
    m = {
      metShare: clamp((t.met + PRIOR_ITEMS * PRIOR_NOISE.metShare) / (t.items + PRIOR_ITEMS), SHARE),
      noisyRight: [1 - slip],
      levelPrior: t.level.map((x, l) =>
        Math.max(LEVEL_FLOOR, (x + PRIOR_EVALUATORS * PRIOR_NOISE.levelPrior[l]!) / levels),
      ),
    };
  }
  return m;
}
