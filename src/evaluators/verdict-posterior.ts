/**
 * How likely a checklist evaluator's combined votes give the wrong case verdict: the measure of
 * doubt of `judge-samples: auto` (README "Judge samples"). One sample that misses two required
 * items is not a certain fail when the judge slips on one item in ten; a pass confirmed on two
 * items is safer than one on ten. So doubt is a probability, not "could one flip change it".
 *
 * The model: an item is either certain (its judge slips 1 time in 200) or noisy (its judge says
 * the opposite of the truth 5 to 20% of the time), and three in four items are truly met. How
 * many of a case's items are noisy is unknown; three levels (10%, 40%, 90%) are weighed by how
 * well each explains the evaluator's own votes, since the items of one answer tend to be equally
 * hard to judge. Each level gives every item a probability of being truly met; the true verdict's
 * distribution follows by summing over the evaluator's items, states merged by what the verdict
 * depends on (a required item unmet, the weight met, the count met).
 *
 * Those figures are a prior. A run sees many cases judged by one judge, so once every case has
 * taken its own samples the run fits them to all of its votes (`run-noise.ts`) and ranks its
 * leftover samples by the fitted model: a judge that slips on every item of half the cases is
 * then known to, where one case's votes could not tell.
 */

/** One checklist item's samples. */
export interface ItemVotes {
  key: string;
  yes: number;
  total: number;
  weight: number;
  required: boolean;
}

/** What the doubt assumes of the judge and the items: the prior, or a run's fit of it. */
export interface NoiseModel {
  /** The share of items truly met. */
  metShare: number;
  /** How often a noisy item is judged right, each figure weighed alike. */
  noisyRight: readonly number[];
  /** The weight of each level of NOISY_SHARES before a case's votes are seen. */
  levelPrior: readonly number[];
}

/** A certain item is judged right this often. */
export const CERTAIN = 0.995;
/** The shares of a case's items that are noisy, weighed by the case's own votes. */
export const NOISY_SHARES = [0.1, 0.4, 0.9] as const;
export const PRIOR_NOISE: NoiseModel = {
  metShare: 0.75,
  noisyRight: [0.8, 0.85, 0.9, 0.95],
  levelPrior: [1 / 3, 1 / 3, 1 / 3],
};
/** More states than this (items of many distinct weights): the least likely are dropped. */
const MAX_STATES = 512;

interface State {
  requiredUnmet: boolean;
  weightMet: number;
  countMet: number;
  /** One assignment (1 met, 0 not) of the items so far that reaches this state. */
  witness: number[];
  /** Its probability under each noise level. */
  probs: number[];
}

export const binomial = (p: number, yes: number, total: number): number =>
  p ** yes * (1 - p) ** (total - yes);

/** P(votes | truly met) and P(votes | truly unmet) for a share `noisy` of noisy items. */
function likelihoods(v: ItemVotes, noisy: number, m: NoiseModel): [number, number] {
  const right = m.noisyRight;
  const noisyMet = right.reduce((s, p) => s + binomial(p, v.yes, v.total), 0) / right.length;
  const noisyUnmet = right.reduce((s, p) => s + binomial(1 - p, v.yes, v.total), 0) / right.length;
  return [
    (1 - noisy) * binomial(CERTAIN, v.yes, v.total) + noisy * noisyMet,
    (1 - noisy) * binomial(1 - CERTAIN, v.yes, v.total) + noisy * noisyUnmet,
  ];
}

/** The weight of each noise level given one evaluator's votes and the model's prior, normalised. */
export function levelWeights(items: readonly ItemVotes[], m: NoiseModel = PRIOR_NOISE): number[] {
  const logs = NOISY_SHARES.map(
    (s, l) =>
      Math.log(m.levelPrior[l]!) +
      items.reduce((sum, v) => {
        const [met, unmet] = likelihoods(v, s, m);
        return sum + Math.log(m.metShare * met + (1 - m.metShare) * unmet);
      }, 0),
  );
  const top = Math.max(...logs);
  const w = logs.map((l) => Math.exp(l - top));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

/** P(truly met | votes) of one item under each noise level. */
function metProbabilities(v: ItemVotes, m: NoiseModel): number[] {
  return NOISY_SHARES.map((s) => {
    const [met, unmet] = likelihoods(v, s, m);
    return (m.metShare * met) / (m.metShare * met + (1 - m.metShare) * unmet);
  });
}

function stateKey(s: State): string {
  return `${s.requiredUnmet ? 1 : 0}|${Math.round(s.weightMet * 1e9)}|${s.countMet}`;
}

/** Every reachable verdict-relevant state of the items' truth, with its probability per level. */
function truthStates(items: readonly ItemVotes[], m: NoiseModel): State[] {
  let states: State[] = [
    { requiredUnmet: false, weightMet: 0, countMet: 0, witness: [], probs: NOISY_SHARES.map(() => 1) },
  ];
  for (const item of items) {
    const q = metProbabilities(item, m);
    const next = new Map<string, State>();
    for (const s of states)
      for (const met of [1, 0]) {
        const t: State = {
          requiredUnmet: s.requiredUnmet || (item.required && met === 0),
          weightMet: s.weightMet + (met ? item.weight : 0),
          countMet: s.countMet + met,
          witness: [...s.witness, met],
          probs: s.probs.map((p, l) => p * (met ? q[l]! : 1 - q[l]!)),
        };
        const key = stateKey(t);
        const seen = next.get(key);
        if (seen) seen.probs = seen.probs.map((p, l) => p + t.probs[l]!);
        else next.set(key, t);
      }
    states = [...next.values()];
    if (states.length > MAX_STATES) {
      const mass = (s: State) => s.probs.reduce((a, b) => a + b, 0);
      states = states.sort((a, b) => mass(b) - mass(a) || stateKey(a).localeCompare(stateKey(b)));
      states = states.slice(0, MAX_STATES);
    }
  }
  return states;
}

/**
 * The probability that the items' true values give a case verdict other than `base`.
 * `verdictOf` replays the case's verdict with the items set to the values given (1 met, 0 not);
 * it must read them only as a checklist's score does (a required item unmet, the weight met, the
 * count met), since it is asked once per merged state. `model`: the prior, or a run's fit.
 */
export function verdictDoubt<V>(
  items: readonly ItemVotes[],
  base: V,
  verdictOf: (values: ReadonlyMap<string, number>) => V,
  model: NoiseModel = PRIOR_NOISE,
): number {
  if (items.length === 0) return 0;
  const weights = levelWeights(items, model);
  let same = 0;
  for (const s of truthStates(items, model)) {
    const values = new Map(items.map((it, i) => [it.key, s.witness[i]!]));
    if (verdictOf(values) === base) same += s.probs.reduce((sum, p, l) => sum + p * weights[l]!, 0);
  }
  return Math.min(1, Math.max(0, 1 - same));
}

/**
 * Doubt above which an evaluator takes one more sample: one chance in ten that its combined
 * votes give the wrong case verdict. Measured in simulation against per-sample thresholds and
 * growing ones, this spent the calls best on easy, hard and mixed suites alike (BENCHMARKS.md,
 * "Judge noise").
 */
export const DOUBT_THRESHOLD = 0.1;
